import { ApiProperty } from '@nestjs/swagger';
import type { ClientErrorGroup } from '../client-errors/client-error-group';
import type { ClientErrorRecord } from '../client-errors/client-error-record';
import { CountBucketReply } from './admin.reply';

export class ClientErrorGroupSummaryReply {
  @ApiProperty({ example: 'net.timeout' }) error_code: string;
  @ApiProperty({ enum: ['android', 'ios', 'harmony'] }) platform: string;
  @ApiProperty({ type: String, nullable: true, description: 'null for reports without a build (null or "").' })
  build_id: string | null;
  @ApiProperty({
    enum: ['normal', 'serious', 'fatal'],
    description: 'The most severe severity any report of the group carried.',
  })
  severity: string;
  @ApiProperty({ description: 'Every report counted since first_seen_at (retention does not lower it).' })
  occurrence_count: number;
  @ApiProperty({ description: 'Distinct users who reported it (erasure removes a user).' }) user_count: number;
  @ApiProperty({ description: 'Distinct device_id values that reported it.' }) device_count: number;
  @ApiProperty() first_seen_at: number;
  @ApiProperty() last_seen_at: number;
  @ApiProperty({ description: 'Message of the most recent report; scrubbed.' }) last_message: string;
}

export class ClientErrorGroupPageReply {
  @ApiProperty({ type: [ClientErrorGroupSummaryReply] }) items: ClientErrorGroupSummaryReply[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
  @ApiProperty() has_more: boolean;
}

export class ClientErrorGroupDetailReply {
  @ApiProperty({ type: ClientErrorGroupSummaryReply }) group: ClientErrorGroupSummaryReply;
  @ApiProperty({ type: [CountBucketReply], description: 'Occurrences per UTC hour, the last 24 hours, oldest first.' })
  per_hour: CountBucketReply[];
  @ApiProperty({ type: [CountBucketReply], description: 'Occurrences per UTC day, the last 30 days, oldest first.' })
  per_day: CountBucketReply[];
}

export class ClientErrorOccurrenceReply {
  @ApiProperty({ description: 'The stored record (GET /app/admin/client-errors/detail?merge_key=).' })
  merge_key: string;
  @ApiProperty({ description: 'event_id of the first report merged into the record.' }) event_id: string;
  @ApiProperty({ description: 'External user ID; "" when the user is gone.' }) user_id: string;
  @ApiProperty() device_id: string;
  @ApiProperty({ enum: ['normal', 'serious', 'fatal'] }) severity: string;
  @ApiProperty() operation: string;
  @ApiProperty({ description: 'Scrubbed.' }) message: string;
  @ApiProperty({ type: String, nullable: true }) trace_id: string | null;
  @ApiProperty() recovered: boolean;
  @ApiProperty({ description: 'Similar reports of this device merged into the record (within one minute).' })
  occurrence_count: number;
  @ApiProperty() first_seen_at: number;
  @ApiProperty() last_seen_at: number;
}

export class ClientErrorOccurrencePageReply {
  @ApiProperty({ type: [ClientErrorOccurrenceReply] }) items: ClientErrorOccurrenceReply[];
  @ApiProperty({ type: String, nullable: true }) next_cursor: string | null;
  @ApiProperty() has_more: boolean;
}

export function toClientErrorGroupSummaryReply(group: ClientErrorGroup): ClientErrorGroupSummaryReply {
  return {
    error_code: group.errorCode,
    platform: group.platform,
    build_id: group.buildId,
    severity: group.severity,
    occurrence_count: group.occurrenceCount,
    user_count: group.userCount,
    device_count: group.deviceCount,
    first_seen_at: group.firstSeenAt,
    last_seen_at: group.lastSeenAt,
    last_message: group.lastMessage,
  };
}

export function toClientErrorOccurrenceReply(
  record: ClientErrorRecord,
  userExternalId: string,
): ClientErrorOccurrenceReply {
  return {
    merge_key: record.mergeKey,
    event_id: record.eventId,
    user_id: userExternalId,
    device_id: record.deviceId,
    severity: record.severity,
    operation: record.operation,
    message: record.message,
    trace_id: record.traceId,
    recovered: record.recovered,
    occurrence_count: record.occurrenceCount,
    first_seen_at: record.firstSeenAt,
    last_seen_at: record.lastSeenAt,
  };
}
