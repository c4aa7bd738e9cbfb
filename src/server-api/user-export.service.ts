import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { isDecimalId } from '../common/ids';
import { CursorCodec } from '../common/pagination/cursor';
import type * as contract from '../contract';
import { MessageHistory } from '../conversations/message-history.service';
import { toMessageReply } from '../conversations/message-reply';
import { FriendsErasure } from '../friends/friends-erasure.service';
import { GroupErasure } from '../groups/group-erasure.service';
import { ReportQueue } from '../reports/report-queue.service';
import type { User } from '../users/user';
import { UsersService } from '../users/users.service';
import { ErasureConversations } from './user-erasure-conversations';
import { ExportUserDto } from './user-export.dto';

/** Messages per export page: one page is read, named and answered at a time, whatever the history's size. */
export const EXPORT_PAGE_SIZE = 500;

const ENDPOINT = 'server.users.export';

/**
 * `POST /app/server/users/export`: what the service holds about one user, as JSON. The first
 * page carries the profile, friends, blocks, current groups with the role, the reports the user
 * filed and the first messages; later pages (by `cursor`) carry only more of the user's own
 * messages, by ID. Nothing of another user beyond their user_id is included: not their
 * messages, not their profile.
 */
@Injectable()
export class UserExportService {
  constructor(
    private readonly users: UsersService,
    private readonly friends: FriendsErasure,
    private readonly groups: GroupErasure,
    private readonly reports: ReportQueue,
    private readonly history: MessageHistory,
    private readonly conversations: ErasureConversations,
    private readonly cursors: CursorCodec,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async export(dto: ExportUserDto): Promise<contract.UserExportReply> {
    const user = await this.users.findByExternalId(dto.user_id);
    // An erased row (reached by its tombstone ID) holds nobody's data any more.
    if (!user || user.erasedAt !== null)
      throw new AppError(ErrorCode.PROFILE_INACCESSIBLE, 'user_id: no such user (unknown, or erased)');
    const filters = { user: user.id };
    const after = dto.cursor === undefined ? null : this.position(dto.cursor, filters);
    const rows = await this.history.listBySender(user.id, after, EXPORT_PAGE_SIZE + 1);
    const page = rows.slice(0, EXPORT_PAGE_SIZE);
    const hasMore = rows.length > EXPORT_PAGE_SIZE;
    const named = await this.conversations.name(
      user,
      page.map((m) => m.conversationId),
    );
    const messages = page.map((m) => toMessageReply(m, named.get(m.conversationId)?.ownId ?? '', user.externalId));
    const last = page[page.length - 1];
    const sections = after === null ? await this.sections(user) : null;
    return {
      user_id: user.externalId,
      exported_at: this.clock.now(),
      profile: sections?.profile ?? null,
      friends: sections?.friends ?? null,
      blocks: sections?.blocks ?? null,
      groups: sections?.groups ?? null,
      reports: sections?.reports ?? null,
      messages,
      next_cursor: hasMore && last ? this.cursors.encode('host', ENDPOINT, filters, { id: last.id }) : null,
      has_more: hasMore,
    };
  }

  private position(cursor: string, filters: Record<string, unknown>): string {
    const position = this.cursors.decode<{ id?: unknown }>(cursor, 'host', ENDPOINT, filters);
    if (
      typeof position !== 'object' ||
      position === null ||
      typeof position.id !== 'string' ||
      !isDecimalId(position.id)
    )
      throw AppError.invalid('cursor', 'is not valid for this user; pass next_cursor unchanged');
    return position.id;
  }

  private async sections(user: User) {
    const [friends, blocks, groups, reports] = await Promise.all([
      this.friends.friendsOf(user.id),
      this.friends.blocksBy(user.id),
      this.groups.membershipsOf(user.id),
      this.reports.filedBy(user.id),
    ]);
    const ids = [...new Set([...friends, ...blocks].map((r) => r.userId))];
    const externalIds = new Map<string, string>();
    // One IN list per 500 users, however many friends the user has.
    for (let i = 0; i < ids.length; i += 500)
      for (const [id, externalId] of await this.users.externalIds(ids.slice(i, i + 500)))
        externalIds.set(id, externalId);
    const relation = (r: { userId: string; createdAt: number }): contract.ExportedRelation => ({
      user_id: externalIds.get(r.userId) ?? '',
      since: r.createdAt,
    });
    return {
      profile: {
        user_id: user.externalId,
        username: user.username ?? '',
        nickname: user.nickname,
        avatar: user.avatar,
        signature: user.signature,
        disabled: this.users.isDisabled(user),
        created_at: user.createdAt,
        profile_updated_at: user.profileUpdatedAt,
      },
      friends: friends.map(relation),
      blocks: blocks.map(relation),
      groups: groups.map((g) => ({ group_id: g.publicId, name: g.name, role: g.role, joined_at: g.joinedAt })),
      reports: reports.map((r) => ({
        target_type: r.targetType,
        target_id: r.targetPublicId,
        reason_code: r.reasonCode,
        description: r.description,
        conversation_id: r.conversationId,
        message_ids: JSON.parse(r.messageIds) as string[],
        created_at: r.createdAt,
      })),
    };
  }
}
