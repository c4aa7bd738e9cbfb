import { ApiProperty } from '@nestjs/swagger';
import type {
  PushPlatform,
  PushPreviewLevel,
  PushProviderId,
  PushProviderStatusReply as ProviderStatusShape,
  PushRegistrationReply as RegistrationShape,
  PushSettingsReply as SettingsShape,
  PushStatusReply as StatusShape,
  PushTestDeviceReply as TestDeviceShape,
  PushTestReply as TestShape,
  PushUnregisterReply as UnregisterShape,
  QuietHours,
} from '../contract/push';
import { PUSH_PROVIDERS } from './providers/push-provider';

export class PushRegistrationReplyDto implements RegistrationShape {
  @ApiProperty() device_id: string;
  @ApiProperty({ enum: PUSH_PROVIDERS }) provider: PushProviderId;
  @ApiProperty({ enum: ['ios', 'android', 'harmony'] }) platform: PushPlatform;
  @ApiProperty({ description: 'Unix ms of the (latest) registration.' }) registered_at: number;
}

export class PushUnregisterReplyDto implements UnregisterShape {
  @ApiProperty({ description: 'Registrations removed (0 when there were none).' }) removed: number;
}

export class QuietHoursReplyDto implements QuietHours {
  @ApiProperty({ example: '22:00' }) start: string;
  @ApiProperty({ example: '07:30' }) end: string;
  @ApiProperty({ example: 'Asia/Shanghai' }) timezone: string;
}

export class PushSettingsReplyDto implements SettingsShape {
  @ApiProperty({ enum: ['full', 'sender', 'none'], nullable: true, description: 'null: the service default.' })
  preview: PushPreviewLevel | null;
  @ApiProperty({ enum: ['full', 'sender', 'none'] }) effective_preview: PushPreviewLevel;
  @ApiProperty({ type: QuietHoursReplyDto, nullable: true }) quiet_hours: QuietHoursReplyDto | null;
  @ApiProperty({ type: [PushRegistrationReplyDto] }) devices: PushRegistrationReplyDto[];
}

export class PushProviderStatusReplyDto implements ProviderStatusShape {
  @ApiProperty({ example: 'apns' }) provider: string;
  @ApiProperty({ enum: PUSH_PROVIDERS, isArray: true }) serves: PushProviderId[];
  @ApiProperty() configured: boolean;
  @ApiProperty() concurrency: number;
  @ApiProperty({ description: 'Requests in flight on this instance.' }) in_flight: number;
  @ApiProperty({ description: 'Notifications waiting, every instance.' }) pending: number;
  @ApiProperty({ type: Number, nullable: true }) last_success_at: number | null;
  @ApiProperty({ type: Number, nullable: true }) last_failure_at: number | null;
  @ApiProperty({ type: String, nullable: true }) last_failure: string | null;
  @ApiProperty() registrations: number;
  @ApiProperty({
    description:
      'A long run of dead-token answers with no delivery on this instance: registrations are kept, not removed (check the credentials and environment).',
  })
  keeping_dead_tokens: boolean;
}

export class PushStatusReplyDto implements StatusShape {
  @ApiProperty({ type: [PushProviderStatusReplyDto] }) providers: PushProviderStatusReplyDto[];
  @ApiProperty({ enum: ['full', 'sender', 'none'] }) preview_default: PushPreviewLevel;
  @ApiProperty() lag_events: number;
}

export class PushTestDeviceReplyDto implements TestDeviceShape {
  @ApiProperty() device_id: string;
  @ApiProperty({ enum: PUSH_PROVIDERS }) provider: PushProviderId;
  @ApiProperty({ enum: ['sent', 'dead_token', 'retry', 'failed', 'not_configured'] })
  outcome: TestDeviceShape['outcome'];
  @ApiProperty({ type: Number, nullable: true }) status: number | null;
  @ApiProperty({ type: String, nullable: true }) reason: string | null;
}

export class PushTestReplyDto implements TestShape {
  @ApiProperty({ type: [PushTestDeviceReplyDto] }) devices: PushTestDeviceReplyDto[];
}
