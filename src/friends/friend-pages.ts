import { AppError } from '../common/app-error';
import { isDecimalId } from '../common/ids';
import { CursorCodec, Page } from '../common/pagination/cursor';
import { toUserReply, UserReply } from '../users/user.mapper';
import type { User } from '../users/user';

/** Items per page of every friends list; one more row is read to know `has_more`. */
export const PAGE_SIZE = 50;

/** What a cursor is bound to (spec 4: account, endpoint and filters). */
export interface ListScope {
  account: string;
  endpoint: string;
  filters: Record<string, unknown>;
}

interface Position {
  id?: unknown;
}

/** The ID to continue below, or null for the first page; a foreign or altered cursor is 1004. */
export function positionAfter(codec: CursorCodec, scope: ListScope, cursor: string | undefined): string | null {
  if (cursor === undefined) return null;
  const position = codec.decode<Position>(cursor, scope.account, scope.endpoint, scope.filters);
  if (
    typeof position !== 'object' ||
    position === null ||
    typeof position.id !== 'string' ||
    !isDecimalId(position.id)
  ) {
    throw AppError.invalid('cursor', 'is not valid for this account, endpoint and filters; pass next_cursor unchanged');
  }
  return position.id;
}

/** Builds the page from up to PAGE_SIZE + 1 rows read newest first. */
export async function pageOf<R extends { id: string }, T>(
  codec: CursorCodec,
  scope: ListScope,
  rows: R[],
  map: (rows: R[]) => Promise<T[]>,
): Promise<Page<T>> {
  const visible = rows.slice(0, PAGE_SIZE);
  const hasMore = rows.length > PAGE_SIZE;
  const last = visible[visible.length - 1];
  return {
    items: await map(visible),
    next_cursor:
      hasMore && last ? codec.encode(scope.account, scope.endpoint, scope.filters, { id: String(last.id) }) : null,
    has_more: hasMore,
  };
}

/** User replies by internal ID; a user that vanished would be a broken invariant (users are never deleted). */
export function userLookup(users: User[], defaultAvatarUrl: string): (id: string) => UserReply {
  const byId = new Map(users.map((user) => [String(user.id), toUserReply(user, defaultAvatarUrl)]));
  return (id: string) => {
    const user = byId.get(String(id));
    if (!user) throw new Error(`user ${id} referenced by a friends row does not exist`);
    return user;
  };
}
