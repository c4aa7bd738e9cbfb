import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { ClientErrorRecordsService } from '../client-errors/client-error-records.service';
import { AnalyticsService } from '../analytics/analytics.service';
import { ReportQueue } from '../reports/report-queue.service';
import { UsersService } from '../users/users.service';
import { SocketCensus } from '../realtime/socket-census';
import { ClientErrorDetailReply, toClientErrorGroupReply } from './admin-moderation.reply';
import { DashboardReply, toBuckets } from './admin.reply';
import { AnalyticsQueryDto } from './admin-analytics.dto';
import { AnalyticsReply, toAnalyticsReply } from './admin-analytics.reply';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Read-only views: client errors (stored scrubbed) and the dashboard's counts. */
@Injectable()
export class AdminInsightsService {
  constructor(
    private readonly clientErrors: ClientErrorRecordsService,
    private readonly figures: AnalyticsService,
    private readonly reports: ReportQueue,
    private readonly users: UsersService,
    private readonly census: SocketCensus,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async clientErrorDetail(mergeKey: string): Promise<ClientErrorDetailReply> {
    const record = await this.clientErrors.findByMergeKey(mergeKey);
    if (!record) throw AppError.invalid('merge_key', 'no such client error');
    const start = this.hourStart() - 23 * HOUR;
    const [users, hourly] = await Promise.all([
      this.externalIds([record.userId]),
      this.clientErrors.countPerHour(start, record),
    ]);
    return {
      group: toClientErrorGroupReply(record, users.get(record.userId) ?? ''),
      device_id: record.deviceId,
      stack_trace: record.stackTrace,
      context: JSON.parse(record.context) as Record<string, unknown>,
      conversation_id: record.conversationId,
      message_id: record.messageId,
      trace_id: record.traceId,
      recovered: record.recovered,
      similar_per_hour: toBuckets(hourly, start, HOUR, 24),
    };
  }

  async dashboard(): Promise<DashboardReply> {
    const now = this.clock.now();
    const dayStart = now - (now % DAY) - 13 * DAY;
    const hourStart = this.hourStart() - 23 * HOUR;
    // Messages from the rollup (never a scan of the messages table); active users counted live.
    const [users, openReports, perDay, perHour, sockets, active] = await Promise.all([
      this.users.count(),
      this.reports.countByStatus('pending'),
      this.figures.messagesPerDay(dayStart, dayStart + 13 * DAY),
      this.clientErrors.countPerHour(hourStart),
      this.census.count(),
      this.figures.activeToday(),
    ]);
    return {
      users,
      open_reports: openReports,
      messages_per_day: toBuckets(perDay, dayStart, DAY, 14),
      client_errors_per_hour: toBuckets(perHour, hourStart, HOUR, 24),
      connected_sockets: sockets.sockets,
      connected_instances: sockets.instances,
      connected_sockets_complete: sockets.complete,
      dau: active.dau,
      mau: active.mau,
      generated_at: now,
    };
  }

  async analytics(dto: AnalyticsQueryDto): Promise<AnalyticsReply> {
    return toAnalyticsReply(await this.figures.overview(dto.range === '90d' ? 90 : 30));
  }

  private hourStart(): number {
    const now = this.clock.now();
    return now - (now % HOUR);
  }

  private async externalIds(ids: string[]): Promise<Map<string, string>> {
    return new Map((await this.users.findByIds(ids)).map((u) => [String(u.id), u.externalId]));
  }
}
