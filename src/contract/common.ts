/** The cursor half of every list reply (spec 4: cursor pages, never page/offset/limit). */
export interface CursorPage<T> {
  items: T[];
  /** Pass unchanged as `cursor` for the next page; null on the last page. */
  next_cursor: string | null;
  has_more: boolean;
}

/** A reply that only names the event its change wrote. */
export interface EventReply {
  event_id: string;
}
