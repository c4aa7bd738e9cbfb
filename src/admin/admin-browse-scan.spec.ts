import type { User } from '../users/user';
import type { UserPosition } from '../users/user-browse';
import { SCAN_BUDGET, Scanned, scanInBatches, scanUsers } from './admin-browse-scan';

const user = (id: number): User => ({ id: String(id), nickname: `n${id}`, lastActiveAt: null }) as unknown as User;

/** A newest-first list of `n` users, read by keyset like the repository. */
function list(n: number) {
  const all = Array.from({ length: n }, (_, i) => user(n - i));
  let reads = 0;
  const read = (after: UserPosition | null, limit: number): Promise<User[]> => {
    reads += 1;
    const from = after ? all.findIndex((u) => Number(u.id) < Number(after.id)) : 0;
    return Promise.resolve(from < 0 ? [] : all.slice(from, from + limit));
  };
  return { all, read, reads: () => reads };
}

async function walkAll(n: number, online: Set<string>, want: boolean) {
  const { read } = list(n);
  const onlineAmong = (ids: string[]) => Promise.resolve(new Set(ids.filter((id) => online.has(id))));
  const seen: string[] = [];
  let after: UserPosition | null = null;
  let partials = 0;
  for (let page = 0; page < 1000; page += 1) {
    const result = await scanUsers({ filters: {}, sort: 'newest', online: want }, after, 50, read, onlineAmong);
    expect(result.rows.length).toBeLessThanOrEqual(50);
    seen.push(...result.rows.map((u) => u.id));
    if (result.partial) partials += 1;
    if (!result.next) return { seen, partials };
    after = result.next;
  }
  throw new Error('no end');
}

describe('scanUsers (the online filter over a sorted list)', () => {
  it('finds sparse matches across budget-limited pages without gaps or repeats', async () => {
    const n = SCAN_BUDGET * 3 + 123;
    const online = new Set(['7', '2000', '2001', String(n)]);
    const { seen, partials } = await walkAll(n, online, true);
    expect(seen).toEqual([String(n), '2001', '2000', '7']);
    expect(partials).toBeGreaterThan(0);
  });

  it('fills full pages when matches are dense, continuing after the last one returned', async () => {
    const n = 500;
    const online = new Set(Array.from({ length: n }, (_, i) => String(i + 1)).filter((id) => Number(id) % 3 !== 0));
    const { seen, partials } = await walkAll(n, online, false);
    expect(seen).toEqual(Array.from({ length: n }, (_, i) => String(n - i)).filter((id) => Number(id) % 3 === 0));
    expect(partials).toBe(0);
  });

  it('without the online filter reads one page plus one row', async () => {
    const { read, reads } = list(120);
    const result = await scanUsers({ filters: {}, sort: 'newest' }, null, 50, read, () =>
      Promise.reject(new Error('no')),
    );
    expect(result.rows.map((u) => u.id)[0]).toBe('120');
    expect(result.next).toEqual({ id: '71' });
    expect(reads()).toBe(1);
  });
});

describe('scanInBatches (the Groups list by last activity)', () => {
  it('reads a page plus one at a time, going on past rows that drop out, without gaps or repeats', async () => {
    const { read } = list(130);
    const gone = new Set(['120', '119', '60']);
    const keep = () => Promise.resolve((u: User) => !gone.has(u.id));
    const position = (u: User): UserPosition => ({ id: u.id });
    const seen: string[] = [];
    const nexts: Array<UserPosition | null> = [];
    let after: UserPosition | null = null;
    do {
      const page: Scanned<User, UserPosition> = await scanInBatches(after, 50, 51, read, keep, position);
      expect(page.partial).toBe(false);
      seen.push(...page.rows.map((u) => u.id));
      nexts.push(page.next);
      after = page.next;
    } while (after);
    expect(seen).toEqual(Array.from({ length: 130 }, (_, i) => String(130 - i)).filter((id) => !gone.has(id)));
    expect(nexts).toEqual([{ id: '79' }, { id: '28' }, null]);
  });
});
