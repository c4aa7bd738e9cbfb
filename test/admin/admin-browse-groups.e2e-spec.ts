// The console's Groups list without a search (sorts, filters, cursor paging), its CSV export and a
// group's page (issue 25, Browsing). The last_active order is the group conversation's last message. Walks are confined to this run's groups by `q` (a name prefix).
import { AdminBrowseService, OPEN_TARGETS_CAP } from '../../src/admin/admin-browse.service';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ApiClient, groupCid } from '../helpers/api-client';
import { AdminSession, adminSession } from '../helpers/admin-client';
import { expectOk } from '../helpers/assertions';
import { IssuedUser, TestApp, issueUser, startTestApp } from '../helpers/test-app';
import { byId, byText, inBatches, parseCsv, reportTarget, walk } from './admin-browse-kit';

interface Item {
  group_id: string;
  name: string;
  owner_user_id: string;
  member_count: number;
  disabled: boolean;
  dismissed_at: number | null;
  open_report_count: number;
  last_active_at: number | null;
}

const COUNT = 56;
const VARIANTS = ['=cmd', 'Beta', 'alpha', 'tie', 'tie', '群组', 'x, "y"'];

describe('admin Groups list, export and group page (issue 25)', () => {
  let t: TestApp;
  let api: ApiClient;
  let db: DataSource;
  let viewer: AdminSession;
  let moderator: AdminSession;
  const P = `bg${randomBytes(4).toString('hex')}`;
  let owners: IssuedUser[];
  let member: IssuedUser;
  let groupIds: string[] = [];
  const internal = new Map<string, string>();

  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
    db = t.app.get(DataSource);
    viewer = await adminSession(t, 'viewer');
    moderator = await adminSession(t, 'moderator');
    owners = await inBatches(7, 7, () => issueUser(t));
    member = await issueUser(t);
    groupIds = await inBatches(COUNT, 7, (i) =>
      api.createGroup(owners[i % owners.length], [member], { name: `${P}${VARIANTS[i % VARIANTS.length]}` }),
    );
    const rows = (await db.query('SELECT id, public_id FROM `groups` WHERE name LIKE ?', [`${P}%`])) as Array<{
      id: string | number;
      public_id: string;
    }>;
    for (const r of rows) internal.set(r.public_id, String(r.id));
    // Reported first: a disabled or dismissed group takes no new reports.
    for (let i = 2; i < COUNT; i += 8) await reportTarget(t, member.token, { group_id: groupIds[i] });
    for (let i = 0; i < COUNT; i += 5)
      expectOk(await moderator.post('/app/admin/groups/status', { group_id: groupIds[i], disabled: true }));
    for (let i = 1; i < COUNT; i += 11)
      expectOk(await moderator.post('/app/admin/groups/dismiss', { group_id: groupIds[i] }));
  }, 180_000);
  afterAll(() => t.close());

  const names = async () =>
    (
      (await db.query('SELECT id, name FROM `groups` WHERE name LIKE ?', [`${P}%`])) as Array<{
        id: string | number;
        name: string;
      }>
    ).map((r) => ({ id: String(r.id), name: r.name }));
  const internalIds = (items: Item[]) => items.map((g) => internal.get(g.group_id)!);

  it('pages newest and name order across pages without gaps or repeats, ties broken by ID', async () => {
    const first = expectOk<{ items: Item[]; has_more: boolean }>(await viewer.get('/app/admin/groups'));
    expect(first.items.length).toBeGreaterThan(0);
    const all = await names();
    expect(all).toHaveLength(COUNT);
    const newest = await walk<Item>(viewer, '/app/admin/groups', { q: P }, (g) => g.group_id);
    expect(newest.pages).toBe(2);
    expect(internalIds(newest.items)).toEqual(
      all
        .map((g) => g.id)
        .sort(byId)
        .reverse(),
    );
    const byName = await walk<Item>(viewer, '/app/admin/groups', { q: P, sort: 'name' }, (g) => g.group_id);
    expect(internalIds(byName.items)).toEqual(
      [...all].sort((a, b) => byText(a.name, b.name) || byId(a.id, b.id)).map((g) => g.id),
    );
    expect(byName.items.every((g) => g.member_count === (g.dismissed_at ? 0 : 2))).toBe(true);
  });

  it('filters by disabled, dismissed and open reports', async () => {
    const pick = (step: number, from: number) => groupIds.filter((_, i) => i >= from && (i - from) % step === 0).sort();
    const ids = (items: Item[]) => items.map((g) => g.group_id).sort();
    expect(
      ids((await walk<Item>(viewer, '/app/admin/groups', { q: P, disabled: 'true' }, (g) => g.group_id)).items),
    ).toEqual(pick(5, 0));
    const enabled = await walk<Item>(
      viewer,
      '/app/admin/groups',
      { q: P, disabled: 'false', sort: 'name' },
      (g) => g.group_id,
    );
    expect(enabled.items).toHaveLength(COUNT - pick(5, 0).length);
    expect(
      ids((await walk<Item>(viewer, '/app/admin/groups', { q: P, dismissed: 'true' }, (g) => g.group_id)).items),
    ).toEqual(pick(11, 1));
    const reported = await walk<Item>(viewer, '/app/admin/groups', { q: P, open_reports: 'true' }, (g) => g.group_id);
    expect(ids(reported.items)).toEqual(pick(8, 2));
    expect(reported.items.every((g) => g.open_report_count === 1)).toBe(true);
    // More reported groups than the read can name: each batch is checked instead, same answer.
    const browse = t.app.get(AdminBrowseService);
    browse.openTargetsCap = 1;
    try {
      for (const sort of ['newest', 'name', 'last_active']) {
        const perBatch = await walk<Item>(
          viewer,
          '/app/admin/groups',
          { q: P, open_reports: 'true', sort },
          (g) => g.group_id,
        );
        expect(ids(perBatch.items).sort()).toEqual([...pick(8, 2)].sort());
      }
    } finally {
      browse.openTargetsCap = OPEN_TARGETS_CAP;
    }
    const both = await walk<Item>(
      viewer,
      '/app/admin/groups',
      { q: P, disabled: 'true', dismissed: 'false' },
      (g) => g.group_id,
    );
    expect(ids(both.items)).toEqual(pick(5, 0).filter((id) => !pick(11, 1).includes(id)));
  });

  it('orders by last message, never-messaged groups last (newest first), across pages and with filters', async () => {
    // Most set directly (with ties on the time), two through real sends (the send path sets it).
    const base = Date.now() - 3_600_000;
    for (let i = 4; i < COUNT; i += 3)
      await db.query('UPDATE conversations SET last_message_at = ? WHERE group_id = ?', [
        base - (i % 4) * 1000,
        internal.get(groupIds[i]),
      ]);
    await api.send(owners[3 % owners.length], groupCid(groupIds[3]), 'first');
    await api.send(owners[7 % owners.length], groupCid(groupIds[7]), 'second');
    const ids = [...internal.values()];
    const rows = (await db.query(
      `SELECT group_id, last_message_at FROM conversations WHERE group_id IN (${ids.map(() => '?').join(', ')})`,
      ids,
    )) as Array<{ group_id: string | number; last_message_at: string | number }>;
    const at = new Map(rows.map((r) => [String(r.group_id), Number(r.last_message_at)]));
    expect(at.get(internal.get(groupIds[3])!)).toBeGreaterThan(base);
    const expected = [...ids].sort((a, b) => at.get(b)! - at.get(a)! || byId(b, a));
    const never = ids.filter((id) => at.get(id) === 0).length;
    expect(never).toBeGreaterThan(COUNT / 2);

    const active = await walk<Item>(viewer, '/app/admin/groups', { q: P, sort: 'last_active' }, (g) => g.group_id);
    expect(active.pages).toBeGreaterThanOrEqual(2);
    expect(internalIds(active.items)).toEqual(expected);
    for (const g of active.items) expect(g.last_active_at).toBe(at.get(internal.get(g.group_id)!) || null);
    expect(active.items.slice(COUNT - never).every((g) => g.last_active_at === null)).toBe(true);
    // Without a search (one page plus one read per page), this run's groups keep the same order.
    const everything = await walk<Item>(viewer, '/app/admin/groups', { sort: 'last_active' }, (g) => g.group_id);
    expect(internalIds(everything.items.filter((g) => internal.has(g.group_id)))).toEqual(expected);
    // The other orders carry the last activity too.
    const newest = await walk<Item>(viewer, '/app/admin/groups', { q: P }, (g) => g.group_id);
    expect(newest.items.find((g) => g.group_id === groupIds[7])!.last_active_at).toBe(
      at.get(internal.get(groupIds[7])!),
    );

    const cases: Array<[Record<string, string>, (g: Item) => boolean]> = [
      [{ disabled: 'true' }, (g) => g.disabled],
      [{ disabled: 'false', dismissed: 'false' }, (g) => !g.disabled && g.dismissed_at === null],
      [{ dismissed: 'true' }, (g) => g.dismissed_at !== null],
      [{ open_reports: 'true' }, (g) => g.open_report_count > 0],
    ];
    for (const [filters, keep] of cases) {
      const filtered = await walk<Item>(
        viewer,
        '/app/admin/groups',
        { q: P, sort: 'last_active', ...filters },
        (g) => g.group_id,
      );
      expect({ filters, ids: internalIds(filtered.items) }).toEqual({
        filters,
        ids: internalIds(active.items.filter(keep)),
      });
    }
  });

  it('binds a last_active cursor to its order, and exports in that order with the last activity', async () => {
    const first = expectOk<{ next_cursor: string; partial: boolean }>(
      await viewer.get('/app/admin/groups', { q: P, sort: 'last_active' }),
    );
    expect(first.partial).toBe(false);
    for (const sort of ['newest', 'name']) {
      const reused = await viewer.get('/app/admin/groups', { q: P, sort, cursor: first.next_cursor });
      expect({ sort, code: reused.body.code }).toEqual({ sort, code: 1004 });
      expect(reused.body.msg).toMatch(/^cursor/);
    }
    const newest = expectOk<{ next_cursor: string }>(await viewer.get('/app/admin/groups', { q: P }));
    const other = await viewer.get('/app/admin/groups', { q: P, sort: 'last_active', cursor: newest.next_cursor });
    expect(other.body.code).toBe(1004);

    const listed = await walk<Item>(
      viewer,
      '/app/admin/groups',
      { q: P, sort: 'last_active', disabled: 'false' },
      (g) => g.group_id,
    );
    const response = await moderator.get('/app/admin/groups/export', { q: P, sort: 'last_active', disabled: 'false' });
    const [header, ...body] = parseCsv(response.text.slice(1));
    const column = header.indexOf('last_active_at');
    expect(column).toBeGreaterThan(0);
    expect(body.map((r) => r[0])).toEqual(listed.items.map((g) => g.group_id));
    expect(body.map((r) => r[column])).toEqual(
      listed.items.map((g) => (g.last_active_at === null ? '' : new Date(g.last_active_at).toISOString())),
    );
    const audit = expectOk<{ items: Array<{ after: Record<string, unknown> }> }>(
      await viewer.get('/app/admin/audit', { action: 'groups.exported', admin: moderator.username }),
    ).items;
    expect(audit[0].after).toMatchObject({ rows: listed.items.length, filters: { sort: 'last_active' } });
  });

  it('finds a search by group ID and by name prefix together, each group once, in each order', async () => {
    const Q = `sg${randomBytes(4).toString('hex')}`;
    const owner = owners[0];
    // The group found by its ID is also named with Q: met by both alternatives, listed once.
    const byGroupId = await api.createGroup(owner, [], { name: `${Q} by id` }, Q);
    const byName = [
      await api.createGroup(owner, [], { name: `${Q}b` }),
      await api.createGroup(owner, [], { name: `${Q}a` }),
    ];
    await api.createGroup(owner, [], { name: `x${Q}` });
    const newest = expectOk<{ items: Item[]; has_more: boolean }>(await viewer.get('/app/admin/groups', { q: Q }));
    expect({ ids: newest.items.map((g) => g.group_id), has_more: newest.has_more }).toEqual({
      ids: [byName[1], byName[0], byGroupId],
      has_more: false,
    });
    const named = expectOk<{ items: Item[] }>(await viewer.get('/app/admin/groups', { q: Q, sort: 'name' }));
    expect(named.items.map((g) => g.group_id)).toEqual([byGroupId, byName[1], byName[0]]);
    expectOk(await moderator.post('/app/admin/groups/status', { group_id: byGroupId, disabled: true }));
    const disabled = expectOk<{ items: Item[] }>(await viewer.get('/app/admin/groups', { q: Q, disabled: 'true' }));
    expect(disabled.items.map((g) => g.group_id)).toEqual([byGroupId]);
  });

  it('refuses a cursor with other filters, and bad values naming the field', async () => {
    const first = expectOk<{ next_cursor: string }>(await viewer.get('/app/admin/groups', { q: P }));
    const reused = await viewer.get('/app/admin/groups', { q: P, sort: 'name', cursor: first.next_cursor });
    expect(reused.body.code).toBe(1004);
    expect(reused.body.msg).toMatch(/^cursor/);
    const users = await viewer.get('/app/admin/users', { q: P, cursor: first.next_cursor });
    expect(users.body.code).toBe(1004);
    for (const [query, field] of [
      [{ sort: 'active' }, 'sort'],
      [{ sort: 'members' }, 'sort'],
      [{ dismissed: 'yes' }, 'dismissed'],
      [{ disabled: '0' }, 'disabled'],
      [{ open_reports: 'false' }, 'open_reports'],
    ] as Array<[Record<string, string>, string]>) {
      for (const path of ['/app/admin/groups', '/app/admin/groups/export']) {
        const response = await moderator.get(path, query);
        expect({ path, code: response.body.code, field: String(response.body.msg).split(/[ :]/)[0] }).toEqual({
          path,
          code: 1004,
          field,
        });
      }
    }
  });

  it('exports the filtered list as CSV and audits it; a viewer is refused', async () => {
    const response = await moderator.get('/app/admin/groups/export', { q: P, sort: 'name' });
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    const [header, ...body] = parseCsv(response.text.slice(1));
    expect(header[0]).toBe('group_id');
    expect(body).toHaveLength(COUNT);
    const all = await names();
    const byPublic = new Map([...internal].map(([pub, id]) => [pub, id]));
    expect(body.map((r) => byPublic.get(r[0]))).toEqual(
      [...all].sort((a, b) => byText(a.name, b.name) || byId(a.id, b.id)).map((g) => g.id),
    );
    // Names starting with "=" stay text: the prefix keeps them from starting with it, others intact.
    expect(body.filter((r) => r[1] === `${P}=cmd`)).toHaveLength(COUNT / VARIANTS.length);
    expect(body.filter((r) => r[1] === `${P}x, "y"`)).toHaveLength(COUNT / VARIANTS.length);
    expect(body.filter((r) => r[1] === `${P}群组`)).toHaveLength(COUNT / VARIANTS.length);
    const audit = expectOk<{ items: Array<{ after: Record<string, unknown> }> }>(
      await viewer.get('/app/admin/audit', { action: 'groups.exported', admin: moderator.username }),
    ).items;
    expect(audit[0].after).toMatchObject({ rows: COUNT, complete: true, filters: { q: P, sort: 'name' } });
    const refused = await viewer.get('/app/admin/groups/export', { q: P });
    expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 403, code: 1004 });
  });

  it("shows a group's page: owner, members, reports against it, admin actions linked to reports", async () => {
    const target = groupIds[2];
    const page = expectOk<{
      group: Item;
      introduction: string;
      owner: { user_id: string };
      reports_against: { count: number; open_count: number; latest: Array<{ reporter_user_id: string }> };
      audit: Array<{ action: string; report_id: string | null }>;
    }>(await viewer.get('/app/admin/groups/overview', { group_id: target }));
    expect(page.group).toMatchObject({ group_id: target, member_count: 2, open_report_count: 1 });
    expect(page.owner.user_id).toBe(owners[2].userId);
    expect(page.reports_against).toMatchObject({ count: 1, open_count: 1 });
    expect(page.reports_against.latest[0].reporter_user_id).toBe(member.userId);
    const disabled = expectOk<{ audit: Array<{ action: string; report_id: string | null }> }>(
      await viewer.get('/app/admin/groups/overview', { group_id: groupIds[0] }),
    );
    expect(disabled.audit[0]).toMatchObject({ action: 'group.disabled', report_id: null });
    const members = expectOk<{ items: Array<{ user_id: string; role: string; muted_until: number }> }>(
      await viewer.get('/app/admin/groups/members', { group_id: target }),
    );
    expect(members.items.map((m) => [m.user_id, m.role]).sort()).toEqual(
      [
        [owners[2].userId, 'owner'],
        [member.userId, 'member'],
      ].sort(),
    );
    const missing = await viewer.get('/app/admin/groups/overview', { group_id: 'no-such-group' });
    expect(missing.body.code).toBe(1209);
    const bad = await viewer.get('/app/admin/groups/overview', { group_id: 'bad id!' });
    expect(bad.body.code).toBe(1004);
    expect(bad.body.msg).toMatch(/^group_id/);
  });
});
