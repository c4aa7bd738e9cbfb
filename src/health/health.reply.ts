import { ApiProperty } from '@nestjs/swagger';

export class LivenessReply {
  @ApiProperty({ example: 'ok' }) status: 'ok';
}

export class ReadinessReply {
  @ApiProperty({ example: 'ready' }) status: 'ready';
  @ApiProperty({ example: 'up' }) database: 'up';
  @ApiProperty({
    example: 'up',
    enum: ['up', 'down', 'disabled'],
    description:
      '`disabled` without REDIS_URL; `down` during a Redis outage (ready all the same unless READY_REQUIRES_REDIS=true)',
  })
  redis: 'up' | 'down' | 'disabled';
}
