import { AppError } from '../common/app-error';
import { isDecimalId } from '../common/ids';
import { CursorCodec } from '../common/pagination/cursor';

/** Every group list answers pages of this size. */
export const GROUP_PAGE_SIZE = 50;

/** The keyset position (an internal ID) of a group-list cursor; 1004 naming `cursor` otherwise. */
export function decodeIdCursor(
  codec: CursorCodec,
  cursor: string,
  account: string,
  endpoint: string,
  filters: Record<string, unknown>,
): string {
  const position = codec.decode<unknown>(cursor, account, endpoint, filters);
  if (typeof position !== 'string' || !isDecimalId(position))
    throw AppError.invalid('cursor', 'is not valid for this account, endpoint and filters; pass next_cursor unchanged');
  return position;
}
