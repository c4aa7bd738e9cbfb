import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { CursorCodec } from '../common/pagination/cursor';
import { ClientErrorRecordsService } from '../client-errors/client-error-records.service';
import { MessageHistory } from '../conversations/message-history.service';
import { ReportQueue } from '../reports/report-queue.service';
import { UsersService } from '../users/users.service';
import { SocketCensus } from '../realtime/socket-census';
import type { AdminActor } from './admin-actor';
import { ClientErrorDetailReply, ClientErrorPageReply, toClientErrorGroupReply } from './admin-moderation.reply';
import { ClientErrorsQueryDto } from './admin.dto';
import { DashboardReply, toBuckets } from './admin.reply';
import { pageOf } from './admin-pages';

const PAGE = 50;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Read-only views: client errors (stored scrubbed) and the dashboard's counts. */
@Injectable()
export class AdminInsightsService {
  constructor(
    private readonly clientErrors: ClientErrorRecordsService,
    private readonly messages: MessageHistory,
    private readonly reports: ReportQueue,
    private readonly users: UsersService,
    private readonly census: SocketCensus,
    private readonly cursors: CursorCodec,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async clientErrorList(actor: AdminActor, dto: ClientErrorsQueryDto): Promise<ClientErrorPageReply> {
    const filters = {
      platform: dto.platform,
      buildId: dto.build_id,
      errorCode: dto.error_code,
      from: dto.from === undefined ? undefined : Number(dto.from),
      to: dto.to === undefined ? undefined : Number(dto.to),
    };
    const before = dto.cursor
      ? this.cursors.decode<string>(dto.cursor, actor.id, 'admin.client_errors', filters)
      : null;
    const rows = await this.clientErrors.list(filters, before, PAGE + 1);
    const users = await this.externalIds(rows.map((r) => r.userId));
    return pageOf(
      rows,
      PAGE,
      (r) => toClientErrorGroupReply(r, users.get(r.userId) ?? ''),
      (last) => this.cursors.encode(actor.id, 'admin.client_errors', filters, String(last.id)),
    );
  }

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
    const [users, openReports, perDay, perHour, sockets] = await Promise.all([
      this.users.count(),
      this.reports.countByStatus('pending'),
      this.messages.countPerDay(dayStart),
      this.clientErrors.countPerHour(hourStart),
      this.census.count(),
    ]);
    return {
      users,
      open_reports: openReports,
      messages_per_day: toBuckets(perDay, dayStart, DAY, 14),
      client_errors_per_hour: toBuckets(perHour, hourStart, HOUR, 24),
      connected_sockets: sockets.sockets,
      connected_instances: sockets.instances,
      connected_sockets_complete: sockets.complete,
      generated_at: now,
    };
  }

  private hourStart(): number {
    const now = this.clock.now();
    return now - (now % HOUR);
  }

  private async externalIds(ids: string[]): Promise<Map<string, string>> {
    return new Map((await this.users.findByIds(ids)).map((u) => [String(u.id), u.externalId]));
  }
}
