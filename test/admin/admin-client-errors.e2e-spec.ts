// Client errors grouped by (error code, platform, build) in the admin console (issue 25): the
// rollups written with each report, their trends, the group's occurrences, filters, sorting,
// paging, bad input, retention and erasure. Each test reports errors of an error code of its own,
// so the groups it reads are its own on a shared database.
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ClientErrorRecordsService } from '../../src/client-errors/client-error-records.service';
import { RetentionService } from '../../src/retention/retention.service';
import { expectOk } from '../helpers/assertions';
import { AdminSession, adminSession } from '../helpers/admin-client';
import { clientErrorBody } from '../helpers/factories';
import { IssuedUser, TestApp, issueUser, startTestApp } from '../helpers/test-app';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

type Group = {
  error_code: string;
  platform: string;
  build_id: string | null;
  severity: string;
  occurrence_count: number;
  user_count: number;
  device_count: number;
  first_seen_at: number;
  last_seen_at: number;
  last_message: string;
};
type Page<T> = { items: T[]; next_cursor: string | null; has_more: boolean };
type Bucket = { start: number; count: number };
type Occurrence = {
  merge_key: string;
  user_id: string;
  device_id: string;
  message: string;
  trace_id: string | null;
  occurrence_count: number;
  last_seen_at: number;
};

const code = (): string => `e2e.${randomBytes(5).toString('hex')}`;

describe('admin client error groups (issue 25)', () => {
  let t: TestApp;
  let viewer: AdminSession;
  beforeAll(async () => {
    t = await startTestApp();
    viewer = await adminSession(t, 'viewer');
  });
  afterAll(() => t.close());

  async function report(user: IssuedUser, over: Record<string, unknown>): Promise<void> {
    expectOk(
      await t.http
        .post('/app/sdk/client-errors')
        .set('Authorization', `Bearer ${user.token}`)
        .send(clientErrorBody({ userId: user.userId }, over)),
    );
  }
  const groups = async (query: Record<string, string>): Promise<Page<Group>> =>
    expectOk<Page<Group>>(await viewer.get('/app/admin/client-errors', query));
  const group = async (query: Record<string, string>) =>
    expectOk<{ group: Group; per_hour: Bucket[]; per_day: Bucket[] }>(
      await viewer.get('/app/admin/client-errors/group', query),
    );
  const occurrences = async (query: Record<string, string>): Promise<Page<Occurrence>> =>
    expectOk<Page<Occurrence>>(await viewer.get('/app/admin/client-errors/occurrences', query));

  it('makes one group of the same error from two users, counts users and devices, and splits by build', async () => {
    // A record merges one device's reports within a minute: hold the clock inside one minute.
    t.clock.set(Math.floor(Date.now() / 60_000) * 60_000 + 1_000);
    try {
      await oneGroupOfTwoUsers();
    } finally {
      t.clock.set(Date.now());
      t.clock.release();
    }
  });

  async function oneGroupOfTwoUsers(): Promise<void> {
    const errorCode = code();
    const [alice, bob] = [await issueUser(t), await issueUser(t)];
    const base = { error_code: errorCode, platform: 'ios', build_id: '7.1.0' };
    // A second apart, all inside the held minute: the order of last seen is the order sent.
    const sent: Array<[IssuedUser, Record<string, unknown>]> = [
      [alice, { ...base, device_id: 'a-phone', severity: 'serious', message: 'first' }],
      [alice, { ...base, device_id: 'a-phone', severity: 'serious', message: 'again' }],
      [alice, { ...base, device_id: 'a-tablet', message: 'tablet' }],
      [bob, { ...base, device_id: 'b-phone', severity: 'normal', message: 'latest of bob' }],
      [bob, { ...base, build_id: '7.2.0', device_id: 'b-phone', severity: 'fatal' }],
    ];
    for (const [user, fields] of sent) {
      await report(user, fields);
      t.clock.advance(1_000);
    }

    const page = await groups({ error_code: errorCode });
    expect(page.items).toHaveLength(2);
    const [newer, older] = page.items;
    expect(newer).toMatchObject({ build_id: '7.2.0', severity: 'fatal', occurrence_count: 1, user_count: 1 });
    expect(older).toMatchObject({
      error_code: errorCode,
      platform: 'ios',
      build_id: '7.1.0',
      // The most severe severity reported, not the latest.
      severity: 'serious',
      occurrence_count: 4,
      user_count: 2,
      device_count: 3,
      last_message: 'latest of bob',
    });
    expect(older.first_seen_at).toBeLessThanOrEqual(older.last_seen_at);

    const detail = await group({ error_code: errorCode, platform: 'ios', build_id: '7.1.0' });
    expect(detail.group).toEqual(older);
    expect(detail.per_hour).toHaveLength(24);
    expect(detail.per_day).toHaveLength(30);
    expect(detail.per_hour.reduce((sum, b) => sum + b.count, 0)).toBe(4);
    expect(detail.per_day.reduce((sum, b) => sum + b.count, 0)).toBe(4);

    // Its occurrences: the stored records (one per device and minute here), newest first, each
    // with its detail one call away.
    const occ = await occurrences({ error_code: errorCode, platform: 'ios', build_id: '7.1.0' });
    expect(occ.items.map((o) => o.device_id).sort()).toEqual(['a-phone', 'a-tablet', 'b-phone']);
    expect(occ.items.find((o) => o.device_id === 'a-phone')).toMatchObject({
      user_id: alice.userId,
      occurrence_count: 2,
    });
    const times = occ.items.map((o) => o.last_seen_at);
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const one = expectOk<{ group: { user_id: string }; stack_trace: string | null; context: object }>(
      await viewer.get('/app/admin/client-errors/detail', { merge_key: occ.items[0].merge_key }),
    );
    expect(one.context).toEqual({ screen: 'home' });
  }

  it('treats a null and an empty build as the same group, addressed without a build', async () => {
    const errorCode = code();
    const user = await issueUser(t);
    await report(user, { error_code: errorCode, build_id: null });
    await report(user, { error_code: errorCode, build_id: '' });
    const page = await groups({ error_code: errorCode });
    expect(page.items).toEqual([expect.objectContaining({ build_id: null, occurrence_count: 2, device_count: 2 })]);
    expect((await group({ error_code: errorCode, platform: 'android' })).group.occurrence_count).toBe(2);
    expect((await group({ error_code: errorCode, platform: 'android', build_id: '' })).group.occurrence_count).toBe(2);
    expect((await occurrences({ error_code: errorCode, platform: 'android' })).items).toHaveLength(2);
  });

  it('makes one group with the right counts when reports of a new group arrive at once', async () => {
    const errorCode = code();
    const users = await Promise.all([0, 1, 2, 3].map(() => issueUser(t)));
    // Each user twice from one device and once from another: 12 reports, 4 users, 8 devices.
    const reports = users.flatMap((u, i) => [
      { user: u, device: `d${i}-a` },
      { user: u, device: `d${i}-a` },
      { user: u, device: `d${i}-b` },
    ]);
    await Promise.all(
      reports.map(({ user, device }) => report(user, { error_code: errorCode, build_id: 'c1', device_id: device })),
    );
    const page = await groups({ error_code: errorCode });
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({ occurrence_count: 12, user_count: 4, device_count: 8 });
    const detail = await group({ error_code: errorCode, platform: 'android', build_id: 'c1' });
    expect(detail.per_hour.reduce((sum, b) => sum + b.count, 0)).toBe(12);
  });

  it('buckets the trends by UTC hour and day (controlled clock)', async () => {
    const errorCode = code();
    // Yesterday 10:30 UTC: always in the past. A time held ahead of the real one by more than the
    // console's idle limit (30 minutes) would end the viewer's session, as from 00:00 to 10:00 UTC
    // "today 10:30" did.
    const today = Math.floor(Date.now() / DAY) * DAY - DAY;
    const now = today + 10 * HOUR + 30 * 60_000;
    const at = async (time: number, times = 1): Promise<void> => {
      t.clock.set(time);
      const user = await issueUser(t);
      for (let i = 0; i < times; i++) await report(user, { error_code: errorCode, platform: 'harmony' });
    };
    try {
      await at(today - 3 * DAY + HOUR); // three days ago: in the 30 days, not in the 24 hours
      await at(today - 40 * DAY); // beyond both windows (still counted in the group)
      await at(now - 2 * HOUR, 2);
      await at(now, 3);
      t.clock.set(now);
      const detail = await group({ error_code: errorCode, platform: 'harmony' });
      expect(detail.group.occurrence_count).toBe(7);
      const hourStart = now - (now % HOUR);
      expect(detail.per_hour[0].start).toBe(hourStart - 23 * HOUR);
      expect(detail.per_hour[23]).toEqual({ start: hourStart, count: 3 });
      expect(detail.per_hour[21]).toEqual({ start: hourStart - 2 * HOUR, count: 2 });
      expect(detail.per_hour.reduce((sum, b) => sum + b.count, 0)).toBe(5);
      expect(detail.per_day[0].start).toBe(today - 29 * DAY);
      expect(detail.per_day[29]).toEqual({ start: today, count: 5 });
      expect(detail.per_day[26]).toEqual({ start: today - 3 * DAY, count: 1 });
      expect(detail.per_day.reduce((sum, b) => sum + b.count, 0)).toBe(6);
      expect(detail.group.first_seen_at).toBe(today - 40 * DAY);
    } finally {
      // Back to real time (release alone would go on from the time held).
      t.clock.set(Date.now());
      t.clock.release();
    }
  });

  it('filters by platform, build, code, severity and time, sorts three ways, and pages by cursor', async () => {
    const errorCode = code();
    const build = `b-${randomBytes(4).toString('hex')}`;
    const [u1, u2, u3] = [await issueUser(t), await issueUser(t), await issueUser(t)];
    // Group A (android): 3 occurrences, 1 user, normal. Group B (ios): 2 occurrences, 2 users,
    // fatal. Group C (harmony, reported last): 1 occurrence, 1 user, serious.
    for (let i = 0; i < 3; i++) await report(u1, { error_code: errorCode, build_id: build, platform: 'android' });
    await report(u2, { error_code: errorCode, build_id: build, platform: 'ios', severity: 'fatal' });
    await report(u3, { error_code: errorCode, build_id: build, platform: 'ios', severity: 'normal' });
    await report(u3, { error_code: errorCode, build_id: build, platform: 'harmony', severity: 'serious' });
    const platforms = (page: Page<Group>): string[] => page.items.map((g) => g.platform);

    expect(platforms(await groups({ build_id: build }))).toEqual(['harmony', 'ios', 'android']);
    expect(platforms(await groups({ build_id: build, sort: 'occurrences' }))).toEqual(['android', 'ios', 'harmony']);
    expect(platforms(await groups({ build_id: build, sort: 'users' }))[0]).toBe('ios');
    expect(platforms(await groups({ build_id: build, platform: 'ios' }))).toEqual(['ios']);
    expect(platforms(await groups({ build_id: build, severity: 'fatal' }))).toEqual(['ios']);
    expect(platforms(await groups({ error_code: errorCode, severity: 'serious' }))).toEqual(['harmony']);
    expect((await groups({ build_id: build, from: String(Date.now() + DAY) })).items).toEqual([]);
    expect((await groups({ build_id: build, to: '1' })).items).toEqual([]);
    expect(await groups({ build_id: build, from: '1', to: String(Date.now() + DAY) })).toMatchObject({
      has_more: false,
      next_cursor: null,
    });

    // 52 groups of one build: a page of 50, then the other 2, by each sort, without repeats.
    const many = `m-${randomBytes(4).toString('hex')}`;
    const user = await issueUser(t);
    for (let i = 0; i < 52; i++) await report(user, { error_code: `${errorCode}.g${i}`, build_id: many });
    for (const sort of ['last_seen', 'occurrences', 'users']) {
      const first = await groups({ build_id: many, sort });
      expect(first.items).toHaveLength(50);
      expect(first.has_more).toBe(true);
      const second = await groups({ build_id: many, sort, cursor: first.next_cursor! });
      expect(second).toMatchObject({ has_more: false, next_cursor: null });
      const codes = [...first.items, ...second.items].map((g) => g.error_code);
      expect(new Set(codes).size).toBe(52);
      // The cursor belongs to its filters and sort.
      const moved = await viewer.get('/app/admin/client-errors', { build_id: build, sort, cursor: first.next_cursor! });
      expect(moved.body).toMatchObject({ code: 1004, msg: expect.stringMatching(/^cursor/) });
    }

    // 52 records of one group (one device each): the occurrences page too.
    const ref = { error_code: `${errorCode}.occ`, platform: 'android', build_id: many };
    for (let i = 0; i < 52; i++) await report(user, { ...ref, device_id: `occ-${i}` });
    const first = await occurrences(ref);
    expect(first.items).toHaveLength(50);
    const second = await occurrences({ ...ref, cursor: first.next_cursor! });
    expect(second.items).toHaveLength(2);
    expect(new Set([...first.items, ...second.items].map((o) => o.device_id)).size).toBe(52);
    const other = await viewer.get('/app/admin/client-errors/occurrences', {
      ...ref,
      build_id: build,
      cursor: first.next_cursor!,
    });
    expect(other.body).toMatchObject({ code: 1004, msg: expect.stringMatching(/^cursor/) });
  });

  it.each([
    ['/app/admin/client-errors', { platform: 'web' }, 'platform'],
    ['/app/admin/client-errors', { severity: 'critical' }, 'severity'],
    ['/app/admin/client-errors', { sort: 'name' }, 'sort'],
    ['/app/admin/client-errors', { from: '-1' }, 'from'],
    ['/app/admin/client-errors', { from: '20', to: '10' }, 'to'],
    ['/app/admin/client-errors', { error_code: 'Not A Code' }, 'error_code'],
    ['/app/admin/client-errors', { build_id: 'x'.repeat(129) }, 'build_id'],
    ['/app/admin/client-errors', { cursor: 'abc.def' }, 'cursor'],
    ['/app/admin/client-errors/group', { platform: 'ios' }, 'error_code'],
    ['/app/admin/client-errors/group', { error_code: 'net.timeout' }, 'platform'],
    ['/app/admin/client-errors/group', { error_code: 'no.such.group.here', platform: 'ios' }, 'error_code'],
    ['/app/admin/client-errors/occurrences', { error_code: 'x', platform: 'ios', cursor: 'x' }, 'cursor'],
    [
      '/app/admin/client-errors/occurrences',
      { error_code: 'x', platform: 'ios', build_id: 'y'.repeat(129) },
      'build_id',
    ],
  ])('refuses %s %j naming %s', async (path, query, fieldName) => {
    const response = await viewer.get(path, query as Record<string, string>);
    expect(response.body).toMatchObject({ code: 1004, data: null });
    expect(response.body.msg).toMatch(new RegExp(`^${fieldName}\\b`));
  });

  it('retention removes a group with its last record, keeps a live one with lifetime counts; erasure forgets the user', async () => {
    const gone = code();
    const kept = code();
    const now = Date.now();
    try {
      t.clock.set(now - 40 * DAY);
      const old = await issueUser(t);
      await report(old, { error_code: gone, device_id: 'old-1' });
      await report(old, { error_code: kept, device_id: 'old-2' });
    } finally {
      // Back to real time (release alone would go on from the time held).
      t.clock.set(Date.now());
      t.clock.release();
    }
    const recent = await issueUser(t);
    await report(recent, { error_code: kept, device_id: 'new-1' });

    const run = await t.app.get(RetentionService).runOnce();
    expect(run.failed).toEqual([]);
    expect(run.deleted.client_error_groups).toBeGreaterThanOrEqual(1);
    expect((await groups({ error_code: gone })).items).toEqual([]);
    const [live] = (await groups({ error_code: kept })).items;
    // Counters are lifetime (since first_seen_at); the occurrences list follows retention.
    expect(live).toMatchObject({ occurrence_count: 2, user_count: 2, device_count: 2 });
    expect(live.first_seen_at).toBeLessThan(now - 39 * DAY);
    expect((await occurrences({ error_code: kept, platform: 'android' })).items.map((o) => o.device_id)).toEqual([
      'new-1',
    ]);
    // No rollup rows are left behind for the removed group.
    const leftovers = (await t.app
      .get(DataSource)
      .query(
        'SELECT COUNT(*) AS n FROM client_error_group_users u WHERE NOT EXISTS (SELECT 1 FROM client_error_groups g WHERE g.group_key = u.group_key)',
      )) as Array<{ n: number | string }>;
    expect(Number(leftovers[0].n)).toBe(0);

    // Erasure: the user's identity rows go, with the distinct counts.
    await t.app.get(ClientErrorRecordsService).deleteOfUser(recent.id);
    const [after] = (await groups({ error_code: kept })).items;
    expect(after).toMatchObject({ occurrence_count: 2, user_count: 1, device_count: 1 });
  });
});
