import { ApiProperty } from '@nestjs/swagger';
import type { ListedConnection } from '../realtime/socket-census';

/** One live connection of a user (the user page's devices), as the instance holding it described it. */
export class AdminConnectionReply {
  @ApiProperty({
    type: String,
    nullable: true,
    enum: ['android', 'ios', 'harmony', 'web'],
    description: "From the handshake's auth.device; null when the client named no device.",
  })
  platform: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'auth.device.device_id; null when not named.' })
  device_id: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'auth.device.app_version; null when not sent.' })
  app_version: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The User-Agent in short ("Chrome 131 on Windows", "okhttp/4"); null when absent or unrecognised.',
  })
  user_agent: string | null;
  @ApiProperty({ description: 'Unix ms the connection was accepted.' }) connected_at: number;
  @ApiProperty({ description: "The instance holding it: host name and process ID (its log lines' pid)." })
  instance: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "The client's address, TRUST_PROXY applied as for HTTP requests; null when unknown.",
  })
  address: string | null;
}

export function toAdminConnectionReply(c: ListedConnection): AdminConnectionReply {
  return {
    platform: c.platform,
    device_id: c.deviceId,
    app_version: c.appVersion,
    user_agent: c.userAgent,
    connected_at: c.connectedAt,
    instance: c.instance,
    address: c.address,
  };
}
