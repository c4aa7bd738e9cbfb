// Shared by the Users and Groups browsing specs: walking a list page by page and reading CSV.
import { randomUUID } from 'node:crypto';
import type { AdminSession } from '../helpers/admin-client';
import { expectOk } from '../helpers/assertions';
import type { TestApp } from '../helpers/test-app';

export interface ListPage<T> {
  items: T[];
  next_cursor: string | null;
  has_more: boolean;
  partial?: boolean;
}

/** Every page of a list from the first, following next_cursor; fails on a repeated item. */
export async function walk<T>(
  s: AdminSession,
  path: string,
  query: Record<string, string>,
  key: (item: T) => string,
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | null = null;
  let pages = 0;
  for (;;) {
    const page: ListPage<T> = expectOk<ListPage<T>>(await s.get(path, cursor ? { ...query, cursor } : query));
    pages += 1;
    for (const item of page.items) {
      expect(seen.has(key(item))).toBe(false);
      seen.add(key(item));
      items.push(item);
    }
    expect(page.has_more).toBe(page.next_cursor !== null);
    if (!page.has_more) return { items, pages };
    cursor = page.next_cursor;
    if (pages > 200) throw new Error('too many pages');
  }
}

/** RFC 4180: quoted fields may hold commas, doubled quotes and line breaks; lines end with CRLF. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i += 1;
    } else cell += c;
  }
  if (cell !== '' || row.length) throw new Error('CSV does not end with CRLF');
  return rows;
}

export async function reportTarget(
  t: TestApp,
  reporterToken: string,
  target: { user_id: string } | { group_id: string },
): Promise<void> {
  const path = 'user_id' in target ? '/app/sdk/reports/user' : '/app/sdk/reports/group';
  expectOk(
    await t.http
      .post(path)
      .set('Authorization', `Bearer ${reporterToken}`)
      .send({ request_id: randomUUID(), reason_code: 1, ...target }),
  );
}

/** Runs `make` for each index, `width` at a time (the app is real: keep the machine breathing). */
export async function inBatches<T>(count: number, width: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < count; i += width)
    out.push(...(await Promise.all(Array.from({ length: Math.min(width, count - i) }, (_, j) => make(i + j)))));
  return out;
}

/** Compares decimal IDs as numbers. */
export const byId = (a: string, b: string): number => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0);
/** Code point order for the BMP text the specs use (the columns' binary collation). */
export const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
