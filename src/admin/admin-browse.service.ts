import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ErrorCode } from '../common/error-code';
import { CursorCodec } from '../common/pagination/cursor';
import { ClientErrorsOfUser } from '../client-errors/client-errors-of-user.service';
import type { GroupActivity } from '../conversations/group-activity';
import { GroupActivityReader } from '../conversations/group-activity.service';
import { Relationships } from '../friends/relationships.service';
import type { Group } from '../groups/group';
import type { GroupBrowseFilters, GroupPosition, GroupSort } from '../groups/group-browse';
import { positionOfGroup } from '../groups/group-browse';
import { GroupBrowser } from '../groups/group-browser.service';
import { GroupDirectory } from '../groups/group-directory.service';
import { PresenceService } from '../realtime/presence.service';
import { SocketCensus } from '../realtime/socket-census';
import { toAdminConnectionReply } from './admin-connections.reply';
import type { Report } from '../reports/report';
import { ReportLookups } from '../reports/report-lookups.service';
import type { User } from '../users/user';
import type { UserPosition } from '../users/user-browse';
import { UserBrowser } from '../users/user-browser.service';
import { UsersService } from '../users/users.service';
import type { AdminActor } from './admin-actor';
import { AdminAuditRepository } from './admin-audit.repository';
import { SCAN_BATCH, Scanned, ScannedPage, UserQuery, scanInBatches, scanUsers } from './admin-browse-scan';
import type {
  GroupOverviewQueryDto,
  GroupsBrowseQueryDto,
  GroupsFilterDto,
  UsersBrowseQueryDto,
  UsersFilterDto,
} from './admin-browse.dto';
import {
  AdminGroupListItemReply,
  AdminGroupListReply,
  AdminGroupOverviewReply,
  AdminReportsAroundReply,
  AdminUserListItemReply,
  AdminUserListReply,
  AdminUserOverviewReply,
  toAdminGroupListItem,
  toAdminMembershipReply,
  toAdminUserListItem,
  toClientErrorOfUserReply,
} from './admin-browse.reply';
import { toAdminReportReply } from './admin-moderation.reply';
import { toAuditItemReply } from './admin.reply';

const PAGE = 50;
/**
 * Up to this many users (or groups) with an open report, the open_reports filter is a list of
 * IDs in the read; beyond it, each batch of the sorted list is checked against the reports.
 */
export const OPEN_TARGETS_CAP = 10_000;
const FIRST = 20;
const LATEST = 5;

const flag = (value: string | undefined): boolean | undefined => (value === undefined ? undefined : value === 'true');

export interface GroupQuery {
  filters: GroupBrowseFilters;
  sort: GroupSort;
  /** The open-reports filter over more groups than OPEN_TARGETS_CAP: checked batch by batch. */
  openReportsPerBatch?: boolean;
}

/** A page of groups and, where the order read it, each one's last message time (0: never). */
export type GroupPage = Scanned<Group, GroupPosition> & { activity?: Map<string, number> };

/** A group in last-activity order; `group` is absent when the filters (or an erasure) leave it out. */
interface ActiveGroup extends GroupActivity {
  group?: Group;
}

/**
 * The console's Users and Groups lists (sorted, filtered, keyset-paged with cursors bound to
 * the filters and order) and a user's and a group's page, composed from the owning modules'
 * services. Writes stay with AdminDirectoryService.
 */
@Injectable()
export class AdminBrowseService {
  /** OPEN_TARGETS_CAP; tests lower it to reach the per-batch check without 10,000 reports. */
  openTargetsCap = OPEN_TARGETS_CAP;

  constructor(
    private readonly users: UsersService,
    private readonly userBrowser: UserBrowser,
    private readonly groupBrowser: GroupBrowser,
    private readonly groups: GroupDirectory,
    private readonly groupActivity: GroupActivityReader,
    private readonly reports: ReportLookups,
    private readonly friends: Relationships,
    private readonly clientErrors: ClientErrorsOfUser,
    private readonly presence: PresenceService,
    private readonly census: SocketCensus,
    private readonly auditRows: AdminAuditRepository,
    private readonly cursors: CursorCodec,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async listUsers(actor: AdminActor, dto: UsersBrowseQueryDto): Promise<AdminUserListReply> {
    const query = await this.userQuery(dto);
    const key = this.userKey(dto);
    const after = dto.cursor
      ? this.cursors.decode<UserPosition>(dto.cursor, actor.id, 'admin.users.browse', key)
      : null;
    const page = await this.userPage(query, after, PAGE);
    return {
      items: await this.userItems(page.rows, query.online),
      next_cursor: page.next ? this.cursors.encode(actor.id, 'admin.users.browse', key, page.next) : null,
      has_more: page.next !== null,
      partial: page.partial,
    };
  }

  async listGroups(actor: AdminActor, dto: GroupsBrowseQueryDto): Promise<AdminGroupListReply> {
    const query = await this.groupQuery(dto);
    const key = this.groupKey(dto);
    const after = dto.cursor
      ? this.cursors.decode<GroupPosition>(dto.cursor, actor.id, 'admin.groups.browse', key)
      : null;
    const { rows, next, partial, activity } = await this.groupPage(query, after, PAGE);
    return {
      items: await this.groupItems(rows, activity),
      next_cursor: next ? this.cursors.encode(actor.id, 'admin.groups.browse', key, next) : null,
      has_more: next !== null,
      partial,
    };
  }

  /** The filters as the list reads them; open_reports asks the reports module which users have one. */
  async userQuery(dto: UsersFilterDto): Promise<UserQuery> {
    const open = dto.open_reports === 'true' ? await this.openTargets('user') : undefined;
    return {
      filters: { q: dto.q, disabled: flag(dto.disabled), onlyIds: open ?? undefined },
      sort: dto.sort ?? 'newest',
      online: flag(dto.online),
      openReportsPerBatch: open === null,
    };
  }

  async groupQuery(dto: GroupsFilterDto): Promise<GroupQuery> {
    const open = dto.open_reports === 'true' ? await this.openTargets('group') : undefined;
    return {
      filters: { q: dto.q, disabled: flag(dto.disabled), dismissed: flag(dto.dismissed), onlyIds: open ?? undefined },
      sort: dto.sort ?? 'newest',
      openReportsPerBatch: open === null,
    };
  }

  /** The targets with an open report, or null when there are more than the read can name. */
  private async openTargets(type: 'user' | 'group'): Promise<string[] | null> {
    const ids = await this.reports.openTargetIds(type, this.openTargetsCap + 1);
    return ids.length > this.openTargetsCap ? null : ids;
  }

  /** The targets among `ids` with an open report. */
  private async reportedAmong(type: 'user' | 'group', ids: string[]): Promise<Set<string>> {
    return new Set((await this.reports.openCountsAmong(type, ids)).keys());
  }

  userPage(query: UserQuery, after: UserPosition | null, want: number): Promise<ScannedPage> {
    const now = this.clock.now();
    return scanUsers(
      query,
      after,
      want,
      (position, limit) => this.userBrowser.page(query.filters, query.sort, position, limit, now),
      (ids) => this.presence.onlineAmongOrFail(ids),
      (ids) => this.reportedAmong('user', ids),
    );
  }

  async groupPage(query: GroupQuery, after: GroupPosition | null, want: number): Promise<GroupPage> {
    if (query.sort === 'last_active') return this.groupsByActivity(query, after, want);
    if (query.openReportsPerBatch) {
      const sort = query.sort;
      const page = await scanInBatches<Group, GroupPosition>(
        after,
        want,
        SCAN_BATCH,
        (position, limit) => this.groupBrowser.page(query.filters, sort, position, limit),
        async (batch) => {
          const reported = await this.reportedAmong(
            'group',
            batch.map((g) => g.id),
          );
          return (group) => reported.has(group.id);
        },
        (group) => positionOfGroup(sort, group),
      );
      return { rows: page.rows, next: page.next, partial: page.partial };
    }
    const rows = await this.groupBrowser.page(query.filters, query.sort, after, want + 1);
    const page = rows.slice(0, want);
    return {
      rows: page,
      next: rows.length > want ? positionOfGroup(query.sort, page[page.length - 1]) : null,
      partial: false,
    };
  }

  /**
   * The last_active order: the conversations module pages groups by last message, the groups
   * module keeps those passing the filters. Unfiltered, a batch is a page plus one (only erased
   * groups drop out); filtered, it scans in SCAN_BATCH batches within the budget, like the
   * Users list's online filter, and may answer a partial page.
   */
  private async groupsByActivity(query: GroupQuery, after: GroupPosition | null, want: number): Promise<GroupPage> {
    const { filters } = query;
    if (filters.onlyIds && filters.onlyIds.length === 0) return { rows: [], next: null, partial: false };
    const filtered = query.openReportsPerBatch || Object.values(filters).some((value) => value !== undefined);
    const read = async (position: ActiveGroup | null, limit: number): Promise<ActiveGroup[]> => {
      const batch = await this.groupActivity.page(position, limit);
      const found = await this.groupBrowser.among(
        filters,
        batch.map((a) => a.groupId),
      );
      const byId = new Map(found.map((g) => [g.id, g]));
      return batch.map((a) => ({ ...a, group: byId.get(a.groupId) }));
    };
    const start = after ? { groupId: after.id, lastMessageAt: after.a ?? 0 } : null;
    const page = await scanInBatches<ActiveGroup, ActiveGroup>(
      start,
      want,
      filtered ? SCAN_BATCH : want + 1,
      read,
      async (batch) => {
        const reported = query.openReportsPerBatch
          ? await this.reportedAmong(
              'group',
              batch.map((row) => row.groupId),
            )
          : null;
        return (row) => row.group !== undefined && (reported === null || reported.has(row.groupId));
      },
      (row) => row,
    );
    return {
      rows: page.rows.map((row) => row.group!),
      next: page.next ? { id: page.next.groupId, a: page.next.lastMessageAt } : null,
      partial: page.partial,
      activity: new Map(page.rows.map((row) => [row.groupId, row.lastMessageAt])),
    };
  }

  /** The page's rows with their presence (known when the online filter chose them) and open report counts. */
  async userItems(rows: User[], online?: boolean): Promise<AdminUserListItemReply[]> {
    const ids = rows.map((u) => u.id);
    const [present, openCounts] = await Promise.all([
      online === undefined ? this.presence.onlineAmongOrFail(ids).catch(() => null) : Promise.resolve(null),
      this.reports.openCountsAmong('user', ids),
    ]);
    const now = this.clock.now();
    return rows.map((u) =>
      toAdminUserListItem(u, now, online ?? (present ? present.has(u.id) : null), openCounts.get(u.id) ?? 0),
    );
  }

  /** The page's rows with their owners, member and open report counts and last activity (read if not given). */
  async groupItems(page: Group[], activity?: Map<string, number>): Promise<AdminGroupListItemReply[]> {
    const ids = page.map((g) => g.id);
    const [owners, counts, openCounts, lastMessageAt] = await Promise.all([
      this.users.externalIds(page.map((g) => g.ownerId)),
      this.groups.countActiveMembersByGroup(ids),
      this.reports.openCountsAmong('group', ids),
      activity ?? this.groupActivity.lastMessageAtOf(ids),
    ]);
    return page.map((g) =>
      toAdminGroupListItem(g, {
        ownerExternalId: owners.get(g.ownerId) ?? '',
        memberCount: counts.get(g.id) ?? 0,
        openReports: openCounts.get(g.id) ?? 0,
        lastMessageAt: lastMessageAt.get(g.id) ?? 0,
      }),
    );
  }

  /** What a cursor is bound to: every filter and the order (an absent one as null). */
  userKey(dto: UsersFilterDto): Record<string, unknown> {
    return {
      q: dto.q,
      sort: dto.sort ?? 'newest',
      disabled: dto.disabled,
      online: dto.online,
      open_reports: dto.open_reports,
    };
  }

  groupKey(dto: GroupsFilterDto): Record<string, unknown> {
    return {
      q: dto.q,
      sort: dto.sort ?? 'newest',
      disabled: dto.disabled,
      dismissed: dto.dismissed,
      open_reports: dto.open_reports,
    };
  }

  async userOverview(externalId: string): Promise<AdminUserOverviewReply> {
    const user = await this.users.findByExternalId(externalId);
    if (!user) throw new AppError(ErrorCode.PROFILE_INACCESSIBLE, 'user_id: no such user');
    const [state, sockets, friendIds, groupCount, memberships, against, filed, errors, audit, items] =
      await Promise.all([
        this.presence.stateOf(user.id),
        this.census.connectionsOf(user.id),
        this.friends.friendIds(user.id),
        this.groups.countActiveGroupsOfUser(user.id),
        this.groupBrowser.membershipsOfUser(user.id, FIRST),
        this.reports.against('user', user.externalId, LATEST),
        this.reports.filedBy(user.id, LATEST),
        this.clientErrors.summary(user.id, LATEST),
        this.auditRows.list({ targetType: 'user', targetId: user.externalId }, null, FIRST),
        this.userItems([user]),
      ]);
    const friends = await this.users.findByIds(friendIds.slice(0, FIRST));
    const byId = new Map(friends.map((f) => [f.id, f]));
    return {
      user: { ...items[0], online: state?.online ?? null },
      signature: user.signature,
      presence: {
        online: state?.online ?? null,
        last_seen_at: state?.online ? null : (state?.lastSeenAt ?? null),
        connections: sockets.sockets,
        instances: sockets.instances,
        complete: sockets.complete,
        devices: sockets.devices.map(toAdminConnectionReply),
        devices_truncated: sockets.truncated,
      },
      friends: {
        count: friendIds.length,
        items: friendIds.slice(0, FIRST).flatMap((id) => {
          const f = byId.get(id);
          return f ? [{ user_id: f.externalId, nickname: f.nickname }] : [];
        }),
      },
      groups: { count: groupCount, items: memberships.map(toAdminMembershipReply) },
      reports_against: await this.reportsAround(against.count, against.openCount, against.latest),
      reports_filed: await this.reportsAround(filed.count, filed.openCount, filed.latest),
      client_errors: { count: errors.count, latest: errors.latest.map(toClientErrorOfUserReply) },
      audit: audit.map(toAuditItemReply),
      profile_editable: this.config.hostApp.enabled,
    };
  }

  async groupOverview(dto: GroupOverviewQueryDto): Promise<AdminGroupOverviewReply> {
    const group = await this.groups.findByPublicId(dto.group_id);
    if (!group) throw new AppError(ErrorCode.GROUP_OPERATION_FORBIDDEN, 'group_id: no such group');
    const [items, owner, against, audit] = await Promise.all([
      this.groupItems([group]),
      this.users.findById(group.ownerId),
      this.reports.against('group', group.publicId, LATEST),
      this.auditRows.list({ targetType: 'group', targetId: group.publicId }, null, FIRST),
    ]);
    return {
      group: items[0],
      introduction: group.introduction,
      owner: { user_id: owner?.externalId ?? '', nickname: owner?.nickname ?? '' },
      reports_against: await this.reportsAround(against.count, against.openCount, against.latest),
      audit: audit.map(toAuditItemReply),
    };
  }

  private async reportsAround(count: number, openCount: number, latest: Report[]): Promise<AdminReportsAroundReply> {
    const reporters = await this.users.externalIds(latest.map((r) => r.reporterId));
    return {
      count,
      open_count: openCount,
      latest: latest.map((r) => toAdminReportReply(r, reporters.get(r.reporterId) ?? '')),
    };
  }
}
