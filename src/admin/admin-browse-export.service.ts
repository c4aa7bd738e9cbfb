import { Injectable, Logger, StreamableFile } from '@nestjs/common';
import { Readable } from 'node:stream';
import { TransactionRunner } from '../database/transaction-runner';
import type { AdminActor } from './admin-actor';
import { AdminAuditService } from './admin-audit.service';
import { AdminBrowseService } from './admin-browse.service';
import type { GroupsFilterDto, UsersFilterDto } from './admin-browse.dto';
import type { AdminGroupListItemReply, AdminUserListItemReply } from './admin-browse.reply';
import { CsvCell, UTF8_BOM, csvLine, csvTime } from './csv';

/** Rows an export holds at most; the rest of a longer list is left out (the audit row says so). */
export const EXPORT_ROW_CAP = 100_000;
/** Rows read per database round trip while streaming. */
const EXPORT_PAGE = 500;

const USER_HEADER = [
  'user_id',
  'username',
  'nickname',
  'avatar',
  'disabled',
  'disabled_until',
  'disabled_reason',
  'last_active_at',
  'open_report_count',
  'created_at',
];
const userCells = (u: AdminUserListItemReply): CsvCell[] => [
  u.user_id,
  u.username,
  u.nickname,
  u.avatar,
  u.disabled,
  csvTime(u.disabled_until),
  u.disabled_reason,
  csvTime(u.last_active_at),
  u.open_report_count,
  csvTime(u.created_at),
];

const GROUP_HEADER = [
  'group_id',
  'name',
  'owner_user_id',
  'member_count',
  'disabled',
  'dismissed_at',
  'open_report_count',
  'last_active_at',
  'created_at',
];
const groupCells = (g: AdminGroupListItemReply): CsvCell[] => [
  g.group_id,
  g.name,
  g.owner_user_id,
  g.member_count,
  g.disabled,
  csvTime(g.dismissed_at),
  g.open_report_count,
  csvTime(g.last_active_at),
  csvTime(g.created_at),
];

interface Chunk<P> {
  lines: string;
  count: number;
  next: P | null;
}

/**
 * The Users and Groups lists as CSV, with the list's own filters and order, read page by page
 * while the response streams (never the whole list in memory). The first page is read before
 * the reply starts, so a bad filter or an absent presence store is a JSON error, not a cut file.
 * The audit row (users.exported / groups.exported, with the filters, the order and the rows
 * written) is committed before the last bytes go out, or when the download is abandoned.
 */
@Injectable()
export class AdminBrowseExportService {
  private readonly logger = new Logger('AdminExport');

  constructor(
    private readonly browse: AdminBrowseService,
    private readonly audit: AdminAuditService,
    private readonly tx: TransactionRunner,
  ) {}

  async users(actor: AdminActor, dto: UsersFilterDto): Promise<StreamableFile> {
    const query = await this.browse.userQuery(dto);
    const read = async (after: unknown, room: number): Promise<Chunk<unknown>> => {
      const page = await this.browse.userPage(query, after as never, Math.min(room, EXPORT_PAGE));
      const items = await this.browse.userItems(page.rows, query.online);
      return { lines: items.map((u) => csvLine(userCells(u))).join(''), count: items.length, next: page.next };
    };
    return this.stream(actor, 'users', this.browse.userKey(dto), USER_HEADER, read, await read(null, EXPORT_ROW_CAP));
  }

  async groups(actor: AdminActor, dto: GroupsFilterDto): Promise<StreamableFile> {
    const query = await this.browse.groupQuery(dto);
    const read = async (after: unknown, room: number): Promise<Chunk<unknown>> => {
      const page = await this.browse.groupPage(query, after as never, Math.min(room, EXPORT_PAGE));
      const items = await this.browse.groupItems(page.rows, page.activity);
      return { lines: items.map((g) => csvLine(groupCells(g))).join(''), count: items.length, next: page.next };
    };
    return this.stream(
      actor,
      'groups',
      this.browse.groupKey(dto),
      GROUP_HEADER,
      read,
      await read(null, EXPORT_ROW_CAP),
    );
  }

  private stream(
    actor: AdminActor,
    list: 'users' | 'groups',
    filters: Record<string, unknown>,
    header: string[],
    read: (after: unknown, room: number) => Promise<Chunk<unknown>>,
    first: Chunk<unknown>,
  ): StreamableFile {
    let rows = 0;
    let audited = false;
    const record = async (complete: boolean, truncated: boolean): Promise<void> => {
      audited = true;
      await this.tx.run((manager) =>
        this.audit.record(manager, actor, {
          action: `${list}.exported`,
          targetType: list === 'users' ? 'user' : 'group',
          targetId: '*',
          before: null,
          after: { filters, rows, complete, truncated, cap: EXPORT_ROW_CAP },
        }),
      );
    };
    const logger = this.logger;
    async function* lines(): AsyncGenerator<string> {
      try {
        let chunk = first;
        let text = UTF8_BOM + csvLine(header);
        for (;;) {
          rows += chunk.count;
          text += chunk.lines;
          const truncated = chunk.next !== null && rows >= EXPORT_ROW_CAP;
          if (chunk.next === null || truncated) {
            await record(true, truncated);
            yield text;
            return;
          }
          yield text;
          text = '';
          chunk = await read(chunk.next, EXPORT_ROW_CAP - rows);
        }
      } finally {
        // An abandoned or failed download is audited too, with the rows written until then.
        if (!audited)
          await record(false, false).catch((error: Error) =>
            logger.error(`${list} export: audit failed: ${error.message}`),
          );
      }
    }
    const stamp = new Date().toISOString().slice(0, 10);
    const file = new StreamableFile(Readable.from(lines()), {
      type: 'text/csv; charset=utf-8',
      disposition: `attachment; filename="${list}-${stamp}.csv"`,
    });
    file.setErrorLogger((error) => this.logger.warn(`${list} export stopped: ${error.message}`));
    return file;
  }
}
