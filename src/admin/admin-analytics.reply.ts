import { ApiProperty } from '@nestjs/swagger';
import type { AnalyticsOverview } from '../analytics/analytics.service';

export class MessageTypeCountReply {
  @ApiProperty({ description: 'Message type (text, image, custom...).' }) type: string;
  @ApiProperty() count: number;
}

export class AnalyticsDayReply {
  @ApiProperty({ description: 'Unix ms of the UTC midnight that starts the day.' }) day: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    description:
      'Users active that day (an SDK request or a socket connection). Today and yesterday are counted live; older days come from the rollup job once it has finished them. Null: a finished day the job has not computed yet (it lags behind), unknown rather than zero.',
  })
  dau: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Distinct users active in the 30 days ending that day; null exactly when dau is (not computed yet).',
  })
  mau: number | null;
  @ApiProperty({ description: 'Messages sent that day, all types (rolled up every minute, about a minute behind).' })
  messages: number;
  @ApiProperty({ type: [MessageTypeCountReply], description: 'Messages by type; types without messages are left out.' })
  messages_by_type: MessageTypeCountReply[];
  @ApiProperty({ description: 'Calls that ended that day (answered or not).' }) calls: number;
  @ApiProperty({ description: 'Minutes the calls that ended that day were connected (one decimal).' })
  call_minutes: number;
}

export class AnalyticsHourReply {
  @ApiProperty({ description: 'Unix ms of the start of the UTC hour.' }) hour: number;
  @ApiProperty({ description: 'Most socket connections (every instance) seen by the minute samples of that hour.' })
  peak_connections: number;
  @ApiProperty({ description: 'API requests (paths under /app/) answered that hour.' }) requests: number;
  @ApiProperty({ description: 'Replies with HTTP 4xx, or HTTP 200 with a non-zero code.' }) client_errors: number;
  @ApiProperty({ description: 'Replies with HTTP 5xx.' }) server_errors: number;
  @ApiProperty({ description: '(client_errors + server_errors) / requests, 0 without requests (4 decimals).' })
  error_rate: number;
}

export class ActiveUsersReply {
  @ApiProperty({ description: 'Users active today (UTC), counted live.' }) dau: number;
  @ApiProperty({ description: 'Distinct users active in the 30 days ending today, counted live.' }) mau: number;
}

export class AnalyticsReply {
  @ApiProperty({ description: 'Days in `days` (30 or 90).' }) range_days: number;
  @ApiProperty({ type: [AnalyticsDayReply], description: 'One entry per UTC day, oldest first, today last.' })
  days: AnalyticsDayReply[];
  @ApiProperty({ type: [String], description: 'Every message type in the range, sorted.' }) message_types: string[];
  @ApiProperty({ type: [AnalyticsHourReply], description: 'The last 48 UTC hours, oldest first, this hour last.' })
  hours: AnalyticsHourReply[];
  @ApiProperty({ type: ActiveUsersReply }) today: ActiveUsersReply;
  @ApiProperty({ description: 'Unix ms the figures were read at.' }) generated_at: number;
}

export function toAnalyticsReply(overview: AnalyticsOverview): AnalyticsReply {
  return {
    range_days: overview.days.length,
    days: overview.days.map((day) => ({
      day: day.day,
      dau: day.dau,
      mau: day.mau,
      messages: [...day.messages.values()].reduce((sum, n) => sum + n, 0),
      messages_by_type: [...day.messages.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([type, count]) => ({ type, count })),
      calls: day.calls,
      call_minutes: Math.round(day.callSeconds / 6) / 10,
    })),
    message_types: overview.messageTypes,
    hours: overview.hours.map((hour) => ({
      hour: hour.hour,
      peak_connections: hour.peakConnections,
      requests: hour.requests,
      client_errors: hour.clientErrors,
      server_errors: hour.serverErrors,
      error_rate:
        hour.requests === 0
          ? 0
          : Math.round(((hour.clientErrors + hour.serverErrors) / hour.requests) * 10_000) / 10_000,
    })),
    today: { dau: overview.today.dau, mau: overview.today.mau },
    generated_at: overview.generatedAt,
  };
}
