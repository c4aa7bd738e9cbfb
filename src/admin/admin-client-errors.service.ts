import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { CursorCodec } from '../common/pagination/cursor';
import type { ClientErrorGroupRef } from '../client-errors/client-error-group';
import { ClientErrorGroupsService } from '../client-errors/client-error-groups.service';
import { UsersService } from '../users/users.service';
import type { AdminActor } from './admin-actor';
import {
  ClientErrorGroupDetailReply,
  ClientErrorGroupPageReply,
  ClientErrorOccurrencePageReply,
  toClientErrorGroupSummaryReply,
  toClientErrorOccurrenceReply,
} from './admin-client-errors.reply';
import {
  ClientErrorGroupRefDto,
  ClientErrorGroupsQueryDto,
  ClientErrorOccurrencesQueryDto,
} from './admin-client-errors.dto';
import { toBuckets } from './admin.reply';

const PAGE = 50;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function refOf(dto: ClientErrorGroupRefDto): ClientErrorGroupRef {
  return { errorCode: dto.error_code, platform: dto.platform, buildId: dto.build_id ? dto.build_id : null };
}

/** The console's client errors: groups by (error code, platform, build), their trends and occurrences. */
@Injectable()
export class AdminClientErrorsService {
  constructor(
    private readonly groups: ClientErrorGroupsService,
    private readonly users: UsersService,
    private readonly cursors: CursorCodec,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async list(actor: AdminActor, dto: ClientErrorGroupsQueryDto): Promise<ClientErrorGroupPageReply> {
    const from = dto.from === undefined ? undefined : Number(dto.from);
    const to = dto.to === undefined ? undefined : Number(dto.to);
    if (from !== undefined && to !== undefined && to <= from) throw AppError.invalid('to', 'must be after from');
    const sort = dto.sort ?? 'last_seen';
    const filters = {
      platform: dto.platform,
      buildId: dto.build_id,
      errorCode: dto.error_code,
      severity: dto.severity,
      from,
      to,
    };
    const bound = { ...filters, sort };
    const after = dto.cursor
      ? this.cursors.decode<[number, string]>(dto.cursor, actor.id, 'admin.client_error_groups', bound)
      : null;
    const page = await this.groups.list(filters, sort, after, PAGE + 1);
    const hasMore = page.groups.length > PAGE;
    return {
      items: page.groups.slice(0, PAGE).map(toClientErrorGroupSummaryReply),
      next_cursor: hasMore
        ? this.cursors.encode(actor.id, 'admin.client_error_groups', bound, page.positions[PAGE - 1])
        : null,
      has_more: hasMore,
    };
  }

  async group(dto: ClientErrorGroupRefDto): Promise<ClientErrorGroupDetailReply> {
    const ref = refOf(dto);
    const group = await this.groups.find(ref);
    if (!group) throw AppError.invalid('error_code', 'no client error group of this error_code, platform and build_id');
    const now = this.clock.now();
    const hoursFrom = now - (now % HOUR) - 23 * HOUR;
    const daysFrom = now - (now % DAY) - 29 * DAY;
    const trend = await this.groups.trend(ref, hoursFrom, daysFrom);
    return {
      group: toClientErrorGroupSummaryReply(group),
      per_hour: toBuckets(trend.hours, hoursFrom, HOUR, 24),
      per_day: toBuckets(trend.days, daysFrom, DAY, 30),
    };
  }

  async occurrences(actor: AdminActor, dto: ClientErrorOccurrencesQueryDto): Promise<ClientErrorOccurrencePageReply> {
    const ref = refOf(dto);
    const bound = { ...ref };
    const after = dto.cursor
      ? this.cursors.decode<[number, string]>(dto.cursor, actor.id, 'admin.client_error_occurrences', bound)
      : null;
    const rows = await this.groups.occurrences(ref, after, PAGE + 1);
    const page = rows.slice(0, PAGE);
    const users = new Map(
      (await this.users.findByIds([...new Set(page.map((r) => r.record.userId))])).map((u) => [
        String(u.id),
        u.externalId,
      ]),
    );
    const hasMore = rows.length > PAGE;
    return {
      items: page.map((r) => toClientErrorOccurrenceReply(r.record, users.get(r.record.userId) ?? '')),
      next_cursor: hasMore
        ? this.cursors.encode(actor.id, 'admin.client_error_occurrences', bound, page[PAGE - 1].position)
        : null,
      has_more: hasMore,
    };
  }
}
