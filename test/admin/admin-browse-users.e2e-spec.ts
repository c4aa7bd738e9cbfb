// The console's Users list without a search (sorts, filters, cursor paging), its CSV export and a
// user's page (issue 25, Browsing). Every list walk is confined to this run's users by `q` (a
// nickname prefix), since on MariaDB the spec files share one database.
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AdminBrowseService, OPEN_TARGETS_CAP } from '../../src/admin/admin-browse.service';
import { ApiClient } from '../helpers/api-client';
import { AdminSession, adminSession } from '../helpers/admin-client';
import { expectOk } from '../helpers/assertions';
import { clientErrorBody } from '../helpers/factories';
import { RtClient, connect, listen, sleep } from '../helpers/realtime';
import { IssuedUser, TestApp, issueUser, randomUserId, startTestApp } from '../helpers/test-app';
import { byId, byText, inBatches, parseCsv, reportTarget, walk } from './admin-browse-kit';

interface Item {
  id: string;
  user_id: string;
  username: string;
  nickname: string;
  disabled: boolean;
  disabled_until: number | null;
  last_active_at: number | null;
  online: boolean | null;
  open_report_count: number;
}

const COUNT = 120;
const VARIANTS = ['alpha', 'Alpha', 'beta', 'béta', '张三', 'tie', 'tie', 'tie', 'zed', 'a, "quoted"'];
// Usernames a spreadsheet would run as formulas; the export must neutralise them.
const FORMULAS = ['=HYPERLINK("http://x","y")', '+1+2', '-3', '@SUM(A1)'];

describe('admin Users list, export and user page (issue 25)', () => {
  let t: TestApp;
  let api: ApiClient;
  let db: DataSource;
  let viewer: AdminSession;
  let moderator: AdminSession;
  const P = `br${randomBytes(4).toString('hex')}`;
  let users: IssuedUser[] = [];
  let reporter: IssuedUser;

  const rows = async () =>
    (
      (await db.query('SELECT id, nickname, last_active_at FROM users WHERE nickname LIKE ?', [`${P}%`])) as Array<{
        id: string | number;
        nickname: string;
        last_active_at: string | number | null;
      }>
    ).map((r) => ({
      id: String(r.id),
      nickname: r.nickname,
      la: r.last_active_at === null ? null : Number(r.last_active_at),
    }));

  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
    db = t.app.get(DataSource);
    viewer = await adminSession(t, 'viewer');
    moderator = await adminSession(t, 'moderator');
    reporter = await issueUser(t);
    users = await inBatches(COUNT, 8, (i) =>
      issueUser(t, {
        user_id: randomUserId('br'),
        nickname: `${P}${VARIANTS[i % VARIANTS.length]}`,
        ...(i < FORMULAS.length ? { username: `${FORMULAS[i]}${P}` } : {}),
      }),
    );
    // Activity as the tracker writes it: ties on purpose, and half the users never active.
    const base = Date.now() - 3_600_000;
    for (let i = 0; i < COUNT / 2; i += 1)
      await db.query('UPDATE users SET last_active_at = ? WHERE id = ?', [base - (i % 7) * 1000, users[i].id]);
    for (let i = 0; i < COUNT; i += 9)
      expectOk(await moderator.post('/app/admin/users/status', { user_id: users[i].userId, disabled: true }));
    for (let i = 0; i < COUNT; i += 13) await reportTarget(t, reporter.token, { user_id: users[i].userId });
  }, 180_000);
  afterAll(() => t.close());

  const ids = (items: Item[]) => items.map((u) => u.id);

  it('shows the first page without a search, newest first', async () => {
    const page = expectOk<{ items: Item[]; has_more: boolean; next_cursor: string | null }>(
      await viewer.get('/app/admin/users'),
    );
    expect(page.items).toHaveLength(50);
    expect(page.has_more).toBe(true);
    expect(ids(page.items)).toEqual([...ids(page.items)].sort(byId).reverse());
  });

  it('pages each order across pages without gaps or repeats, ties broken by ID', async () => {
    const all = await rows();
    expect(all).toHaveLength(COUNT);
    const newest = await walk<Item>(viewer, '/app/admin/users', { q: P }, (u) => u.id);
    expect(newest.pages).toBe(3);
    expect(ids(newest.items)).toEqual(
      all
        .map((r) => r.id)
        .sort(byId)
        .reverse(),
    );

    const byName = await walk<Item>(viewer, '/app/admin/users', { q: P, sort: 'name' }, (u) => u.id);
    const expectedName = [...all].sort((a, b) => byText(a.nickname, b.nickname) || byId(a.id, b.id));
    expect(ids(byName.items)).toEqual(expectedName.map((r) => r.id));

    const active = await walk<Item>(viewer, '/app/admin/users', { q: P, sort: 'last_active' }, (u) => u.id);
    const expectedActive = [...all].sort((a, b) => {
      if (a.la === null || b.la === null) return a.la === b.la ? byId(b.id, a.id) : a.la === null ? 1 : -1;
      return b.la - a.la || byId(b.id, a.id);
    });
    expect(ids(active.items)).toEqual(expectedActive.map((r) => r.id));
    // The never-active ones come last, and the page boundary fell inside the ties.
    expect(active.items.slice(COUNT / 2).every((u) => u.last_active_at === null)).toBe(true);
  });

  it('filters by disabled and by open reports, paged, with the sort', async () => {
    const disabledIds = users.filter((_, i) => i % 9 === 0).map((u) => u.id);
    const disabled = await walk<Item>(
      viewer,
      '/app/admin/users',
      { q: P, disabled: 'true', sort: 'name' },
      (u) => u.id,
    );
    expect(ids(disabled.items).sort(byId)).toEqual([...disabledIds].sort(byId));
    expect(disabled.items.every((u) => u.disabled)).toBe(true);
    const enabled = await walk<Item>(viewer, '/app/admin/users', { q: P, disabled: 'false' }, (u) => u.id);
    expect(enabled.items).toHaveLength(COUNT - disabledIds.length);
    expect(enabled.pages).toBe(3);
    expect(enabled.items.some((u) => u.disabled)).toBe(false);

    const reportedIds = users.filter((_, i) => i % 13 === 0).map((u) => u.id);
    const reported = await walk<Item>(
      viewer,
      '/app/admin/users',
      { q: P, open_reports: 'true', sort: 'last_active' },
      (u) => u.id,
    );
    expect(ids(reported.items).sort(byId)).toEqual([...reportedIds].sort(byId));
    expect(reported.items.every((u) => u.open_report_count === 1)).toBe(true);

    // More reported users than the read can name: each batch is checked instead, same answer.
    const browse = t.app.get(AdminBrowseService);
    browse.openTargetsCap = 1;
    try {
      for (const sort of ['newest', 'name', 'last_active']) {
        const perBatch = await walk<Item>(
          viewer,
          '/app/admin/users',
          { q: P, open_reports: 'true', sort },
          (u) => u.id,
        );
        expect(ids(perBatch.items).sort(byId)).toEqual([...reportedIds].sort(byId));
      }
    } finally {
      browse.openTargetsCap = OPEN_TARGETS_CAP;
    }
  });

  it('filters by online now (the presence registry), paging the offline ones across pages', async () => {
    const url = await listen(t);
    const target = users[5];
    let client: RtClient | null = null;
    try {
      client = await connect(url, { auth: { token: target.token } });
      let online: Item[] = [];
      for (let i = 0; i < 50 && online.length === 0; i += 1) {
        online = (await walk<Item>(viewer, '/app/admin/users', { q: P, online: 'true' }, (u) => u.id)).items;
        if (!online.length) await sleep(100);
      }
      expect(online.map((u) => [u.user_id, u.online])).toEqual([[target.userId, true]]);
      const offline = await walk<Item>(
        viewer,
        '/app/admin/users',
        { q: P, online: 'false', sort: 'name' },
        (u) => u.id,
      );
      expect(offline.items).toHaveLength(COUNT - 1);
      expect(offline.pages).toBe(3);
      expect(offline.items.every((u) => u.online === false)).toBe(true);
      const overview = expectOk<{ presence: { online: boolean; connections: number } }>(
        await viewer.get('/app/admin/users/overview', { user_id: target.userId }),
      );
      expect(overview.presence).toMatchObject({ online: true, connections: 1 });
    } finally {
      client?.close();
    }
  });

  it('finds a search by user ID, by username and by nickname prefix together, each user once, in each order', async () => {
    const Q = `sq${randomBytes(4).toString('hex')}`;
    // byId's nickname also starts with Q: met by two alternatives, listed once.
    const byIdUser = await issueUser(t, { user_id: Q, nickname: `${Q} by id` });
    const byUsername = await issueUser(t, { user_id: randomUserId('sq'), username: Q, nickname: 'zz not a prefix' });
    const byPrefix = await inBatches(3, 3, (i) =>
      issueUser(t, { user_id: randomUserId('sq'), nickname: `${Q}${['b', 'a', 'a'][i]}` }),
    );
    await issueUser(t, { user_id: randomUserId('sq'), nickname: `x${Q}` });
    await db.query('UPDATE users SET last_active_at = ? WHERE id IN (?, ?)', [
      Date.now() - 60_000,
      byUsername.id,
      byPrefix[2].id,
    ]);
    const found = [byIdUser, byUsername, ...byPrefix].map((u) => ({
      id: String(u.id),
      nickname:
        u === byIdUser
          ? `${Q} by id`
          : u === byUsername
            ? 'zz not a prefix'
            : `${Q}${['b', 'a', 'a'][byPrefix.indexOf(u)]}`,
      active: u === byUsername || u === byPrefix[2],
    }));
    const newest = [...found].sort((a, b) => byId(b.id, a.id)).map((u) => u.id);
    const byName = [...found].sort((a, b) => byText(a.nickname, b.nickname) || byId(a.id, b.id)).map((u) => u.id);
    const active = [...found].sort((a, b) => Number(b.active) - Number(a.active) || byId(b.id, a.id)).map((u) => u.id);
    for (const [sort, expected] of [
      ['newest', newest],
      ['name', byName],
      ['last_active', active],
    ] as const) {
      const page = expectOk<{ items: Item[]; has_more: boolean }>(await viewer.get('/app/admin/users', { q: Q, sort }));
      expect({ sort, ids: ids(page.items), has_more: page.has_more }).toEqual({ sort, ids: expected, has_more: false });
    }
    // With a filter: it holds in every alternative.
    expectOk(await moderator.post('/app/admin/users/status', { user_id: byUsername.userId, disabled: true }));
    const disabled = expectOk<{ items: Item[] }>(await viewer.get('/app/admin/users', { q: Q, disabled: 'true' }));
    expect(ids(disabled.items)).toEqual([String(byUsername.id)]);
    const enabled = expectOk<{ items: Item[] }>(await viewer.get('/app/admin/users', { q: Q, disabled: 'false' }));
    expect(ids(enabled.items)).toEqual(newest.filter((id) => id !== String(byUsername.id)));
  });

  it('refuses a cursor with other filters or another order, and bad filter values, naming the field', async () => {
    const first = expectOk<{ next_cursor: string }>(await viewer.get('/app/admin/users', { q: P, sort: 'name' }));
    const others: Array<Record<string, string>> = [
      { q: P },
      { q: P, sort: 'name', disabled: 'false' },
      { q: `${P}x`, sort: 'name' },
    ];
    for (const other of others) {
      const response = await viewer.get('/app/admin/users', { ...other, cursor: first.next_cursor });
      expect(response.body.code).toBe(1004);
      expect(response.body.msg).toMatch(/^cursor/);
    }
    expectOk(await viewer.get('/app/admin/users', { q: P, sort: 'name', cursor: first.next_cursor }));
    const bad: Array<[Record<string, string | string[]>, string]> = [
      [{ sort: 'foo' }, 'sort'],
      [{ sort: 'NAME' }, 'sort'],
      [{ disabled: '1' }, 'disabled'],
      [{ disabled: 'TRUE' }, 'disabled'],
      [{ disabled: ['true', 'false'] }, 'disabled'],
      [{ online: 'yes' }, 'online'],
      [{ online: '' }, 'online'],
      [{ open_reports: 'false' }, 'open_reports'],
      [{ q: '' }, 'q'],
    ];
    for (const [query, field] of bad) {
      const response = await viewer.get('/app/admin/users', query as Record<string, string>);
      expect({ code: response.body.code, field: String(response.body.msg).split(/[ :]/)[0] }).toEqual({
        code: 1004,
        field,
      });
    }
    for (const [query, field] of bad.slice(0, 8)) {
      const response = await moderator.get('/app/admin/users/export', query as Record<string, string>);
      expect({ code: response.body.code, field: String(response.body.msg).split(/[ :]/)[0] }).toEqual({
        code: 1004,
        field,
      });
    }
  });

  it('exports the filtered list as CSV (BOM, RFC 4180, formulas neutralised) and audits it', async () => {
    const response = await moderator.get('/app/admin/users/export', { q: P, sort: 'name' });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toMatch(/^attachment; filename="users-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(response.headers['cache-control']).toBe('no-store');
    const text = response.text;
    expect(text.charCodeAt(0)).toBe(0xfeff);
    const [header, ...body] = parseCsv(text.slice(1));
    expect(header).toEqual([
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
    ]);
    expect(body).toHaveLength(COUNT);
    const all = await rows();
    const nameOrder = [...all].sort((a, b) => byText(a.nickname, b.nickname) || byId(a.id, b.id));
    const byExternal = new Map(users.map((u) => [u.userId, u.id]));
    expect(body.map((r) => byExternal.get(r[0]))).toEqual(nameOrder.map((r) => r.id));
    // Formulas prefixed, commas and quotes round-trip, Unicode intact.
    for (let i = 0; i < FORMULAS.length; i += 1) {
      const row = body.find((r) => r[0] === users[i].userId)!;
      expect(row[1]).toBe(`'${FORMULAS[i]}${P}`);
    }
    expect(body.filter((r) => r[2] === `${P}a, "quoted"`)).toHaveLength(COUNT / VARIANTS.length);
    expect(body.filter((r) => r[2] === `${P}张三`)).toHaveLength(COUNT / VARIANTS.length);
    expect(text).toContain(`"${P}a, ""quoted"""`);
    const disabledRow = body.find((r) => r[0] === users[0].userId)!;
    expect(disabledRow[4]).toBe('true');
    expect(body.find((r) => r[0] === users[1].userId)![4]).toBe('false');
    expect(disabledRow[7]).toMatch(/^\d{4}-\d{2}-\d{2}T/);

    const audit = expectOk<{ items: Array<{ action: string; admin: string; after: Record<string, unknown> }> }>(
      await viewer.get('/app/admin/audit', { action: 'users.exported', admin: moderator.username }),
    ).items;
    expect(audit[0].after).toMatchObject({
      rows: COUNT,
      complete: true,
      truncated: false,
      filters: { q: P, sort: 'name' },
    });

    const filtered = parseCsv(
      (await moderator.get('/app/admin/users/export', { q: P, disabled: 'true' })).text.slice(1),
    );
    expect(filtered).toHaveLength(1 + users.filter((_, i) => i % 9 === 0).length);
  });

  it('refuses the export to a viewer (personal data), with nothing audited', async () => {
    const response = await viewer.get('/app/admin/users/export', { q: P });
    expect({ status: response.status, code: response.body.code }).toEqual({ status: 403, code: 1004 });
    const audit = expectOk<{ items: unknown[] }>(
      await viewer.get('/app/admin/audit', { action: 'users.exported', admin: viewer.username }),
    ).items;
    expect(audit).toHaveLength(0);
  });

  it("shows a user's page: presence, friends, groups with role, reports both ways, client errors, admin actions", async () => {
    const [u, friend, owner, other] = [await issueUser(t), await issueUser(t), await issueUser(t), await issueUser(t)];
    await api.befriend(u, friend);
    const groupId = await api.createGroup(owner, [u]);
    await reportTarget(t, u.token, { user_id: other.userId });
    await reportTarget(t, reporter.token, { user_id: u.userId });
    expectOk(
      await t.http.post('/app/sdk/client-errors').set('Authorization', `Bearer ${u.token}`).send(clientErrorBody(u)),
    );
    expectOk(await moderator.post('/app/admin/users/status', { user_id: u.userId, disabled: true }));

    const page = expectOk<{
      user: Item;
      presence: { online: boolean | null; connections: number; complete: boolean };
      friends: { count: number; items: Array<{ user_id: string }> };
      groups: { count: number; items: Array<{ group_id: string; role: string }> };
      reports_against: { count: number; open_count: number; latest: Array<{ reporter_user_id: string }> };
      reports_filed: { count: number; open_count: number; latest: Array<{ target_id: string }> };
      client_errors: { count: number; latest: Array<{ error_code: string }> };
      audit: Array<{ action: string; target_id: string }>;
    }>(await viewer.get('/app/admin/users/overview', { user_id: u.userId }));
    expect(page.user).toMatchObject({ user_id: u.userId, disabled: true, open_report_count: 1 });
    expect(page.presence).toMatchObject({ online: false, connections: 0, complete: true });
    expect(page.friends).toEqual({ count: 1, items: [{ user_id: friend.userId, nickname: expect.any(String) }] });
    expect(page.groups.count).toBe(1);
    expect(page.groups.items).toMatchObject([{ group_id: groupId, role: 'member' }]);
    expect(page.reports_against).toMatchObject({ count: 1, open_count: 1 });
    expect(page.reports_against.latest[0].reporter_user_id).toBe(reporter.userId);
    expect(page.reports_filed).toMatchObject({ count: 1, open_count: 1 });
    expect(page.reports_filed.latest[0].target_id).toBe(other.userId);
    expect(page.client_errors.count).toBe(1);
    expect(page.client_errors.latest[0].error_code).toBe('net.timeout');
    expect(page.audit[0]).toMatchObject({ action: 'user.disabled', target_id: u.userId });

    const missing = await viewer.get('/app/admin/users/overview', { user_id: 'nobody-here' });
    expect({ code: missing.body.code, msg: missing.body.msg }).toEqual({ code: 1204, msg: 'user_id: no such user' });
    const blank = await viewer.get('/app/admin/users/overview');
    expect(blank.body.code).toBe(1004);
    expect(blank.body.msg).toMatch(/^user_id/);
  });
});
