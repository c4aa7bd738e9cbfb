/** A page of at most `size` items from `rows` (fetched with one extra to know whether more follow). */
export function pageOf<R, T>(
  rows: R[],
  size: number,
  map: (row: R) => T,
  cursorAfter: (last: R) => string,
): { items: T[]; next_cursor: string | null; has_more: boolean } {
  const page = rows.slice(0, size);
  const hasMore = rows.length > size;
  return { items: page.map(map), next_cursor: hasMore ? cursorAfter(page[page.length - 1]) : null, has_more: hasMore };
}
