// The console's client error groups are counted after each report's commit, in batches
// (ClientErrorRollups): these tests check that the counts stay exact under concurrent reports,
// retries, a crash between commit and count (the sweep), two sweeps at once, retention and
// erasure. Each test reports errors of an error code of its own. The file runs on a database of
// its own: what a "crashed" instance left un-counted must stay so until the test counts it, and
// on the shared MySQL database any other spec file's instance sweeps every un-counted submission
// older than its own clock's 10 s (its clock often held days ahead), and any retention run
// sweeps them all.
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ClientErrorRecordsService } from '../../src/client-errors/client-error-records.service';
import { ClientErrorRollupsRepository } from '../../src/client-errors/client-error-rollups.repository';
import { ClientErrorRollups } from '../../src/client-errors/client-error-rollups.service';
import { expectOk } from '../helpers/assertions';
import { AdminSession, adminSession } from '../helpers/admin-client';
import { clientErrorBody } from '../helpers/factories';
import { IsolatedDatabase, isolatedDatabase } from '../helpers/isolated-database';
import { IssuedUser, TestApp, issueUser, startTestApp } from '../helpers/test-app';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

type Group = {
  error_code: string;
  build_id: string | null;
  occurrence_count: number;
  user_count: number;
  device_count: number;
};
type Bucket = { start: number; count: number };

const code = (): string => `e2e.${randomBytes(5).toString('hex')}`;

describe('client error group rollups (counted after commit, in batches)', () => {
  let database: IsolatedDatabase;
  let t: TestApp;
  let viewer: AdminSession;
  let rollups: ClientErrorRollups;
  beforeAll(async () => {
    database = await isolatedDatabase();
    // No retention run of its own meanwhile either (it sweeps every un-counted submission).
    t = await startTestApp({ ...database.env, RETENTION_INTERVAL_SECONDS: String(24 * 3600) });
    viewer = await adminSession(t, 'viewer');
    rollups = t.app.get(ClientErrorRollups);
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    await t?.close();
    await database?.drop();
  });

  async function report(user: IssuedUser, body: Record<string, unknown>): Promise<void> {
    expectOk(await t.http.post('/app/sdk/client-errors').set('Authorization', `Bearer ${user.token}`).send(body));
  }
  const groupsOf = async (errorCode: string): Promise<Group[]> =>
    expectOk<{ items: Group[] }>(await viewer.get('/app/admin/client-errors', { error_code: errorCode })).items;
  const detail = async (errorCode: string, build: string) =>
    expectOk<{ group: Group; per_hour: Bucket[]; per_day: Bucket[] }>(
      await viewer.get('/app/admin/client-errors/group', {
        error_code: errorCode,
        platform: 'android',
        build_id: build,
      }),
    );
  /**
   * A crashed instance: its reports commit, and are never handed to its batcher. Nor does this
   * instance's sweep timer (every 30 s) count them until jest.restoreAllMocks(): the test checks
   * they are left un-counted first.
   */
  const crashBeforeCounting = (): void => {
    jest.spyOn(rollups, 'add').mockImplementation(() => undefined);
    jest.spyOn(rollups, 'sweep').mockResolvedValue(0);
  };
  const submissionsOf = async (user: IssuedUser): Promise<Array<{ rolled_up: number | string | boolean }>> =>
    (await t.app
      .get(DataSource)
      .query('SELECT rolled_up FROM client_error_submissions WHERE user_id = ?', [user.id])) as Array<{
      rolled_up: number;
    }>;

  it('counts 50 concurrent reports (and their retries) across groups, users, devices and hours exactly', async () => {
    const errorCode = code();
    const users = await Promise.all(Array.from({ length: 5 }, () => issueUser(t)));
    const builds = ['1.0', '2.0', '3.0'];
    type Sent = { user: IssuedUser; body: Record<string, unknown>; build: string; device: string; hourAgo: boolean };
    const sent: Sent[] = [];
    const make = (i: number, hourAgo: boolean): Sent => {
      const user = users[i % users.length];
      const build = builds[i % builds.length];
      const device = `dev-${i % 7}`;
      const body = clientErrorBody(user, {
        error_code: errorCode,
        build_id: build,
        device_id: device,
        // Different operations so that reports of a device in the same minute make records of their own.
        operation: `op-${i % 4}`,
        severity: i % 11 === 0 ? 'fatal' : 'normal',
      });
      return { user, body, build, device, hourAgo };
    };
    // Two hours ago, then now: each group has two hour buckets.
    const now = Date.now();
    try {
      t.clock.set(now - 2 * HOUR);
      const earlier = Array.from({ length: 10 }, (_, i) => make(i, true));
      await Promise.all(earlier.map((s) => report(s.user, s.body)));
      sent.push(...earlier);
    } finally {
      t.clock.set(Date.now());
      t.clock.release();
    }
    const later = Array.from({ length: 50 }, (_, i) => make(i + 10, false));
    // Five of them sent twice at once, and five of the earlier ones again: retries count once.
    const retries = [...later.slice(0, 5), ...sent.slice(0, 5)];
    await Promise.all([...later, ...retries].map((s) => report(s.user, s.body)));
    sent.push(...later);

    const groups = await groupsOf(errorCode);
    expect(groups).toHaveLength(builds.length);
    for (const build of builds) {
      const mine = sent.filter((s) => s.build === build);
      const expected = {
        occurrence_count: mine.length,
        user_count: new Set(mine.map((s) => s.user.id)).size,
        device_count: new Set(mine.map((s) => s.device)).size,
      };
      expect(groups.find((g) => g.build_id === build)).toMatchObject(expected);
      const { group, per_hour, per_day } = await detail(errorCode, build);
      expect(group).toMatchObject(expected);
      const hourOf = (at: number): number => at - (at % HOUR);
      const counts = per_hour.filter((b) => b.count > 0);
      const earlierCount = mine.filter((s) => s.hourAgo).length;
      // The earlier reports are in the hour of two hours ago, the rest in this hour (or the one before, if it just turned).
      expect(counts.reduce((sum, b) => sum + b.count, 0)).toBe(mine.length);
      expect(per_hour.find((b) => b.start === hourOf(now - 2 * HOUR))?.count).toBe(earlierCount);
      expect(per_day.reduce((sum, b) => sum + b.count, 0)).toBe(mine.length);
    }
  });

  it('counts what a crashed instance committed but never counted once, with two sweeps at once', async () => {
    const errorCode = code();
    const [alice, bob] = [await issueUser(t), await issueUser(t)];
    crashBeforeCounting();
    await report(alice, clientErrorBody(alice, { error_code: errorCode, build_id: 'x', device_id: 'a-1' }));
    await report(alice, clientErrorBody(alice, { error_code: errorCode, build_id: 'x', device_id: 'a-2' }));
    await report(bob, clientErrorBody(bob, { error_code: errorCode, build_id: 'x', device_id: 'b-1' }));
    // Not counted: reading the groups flushes this instance's batch, which never got them.
    expect(await groupsOf(errorCode)).toEqual([]);
    expect((await submissionsOf(alice)).map((s) => Number(s.rolled_up))).toEqual([0, 0]);
    jest.restoreAllMocks();

    // Two instances' sweeps at once (everything accepted up to now): each submission counted once.
    await Promise.all([rollups.sweep(Date.now() + 1), rollups.sweep(Date.now() + 1)]);
    expect((await groupsOf(errorCode))[0]).toMatchObject({ occurrence_count: 3, user_count: 2, device_count: 3 });
    expect((await submissionsOf(alice)).map((s) => Number(s.rolled_up))).toEqual([1, 1]);
    // A later sweep finds nothing of them left to count.
    await rollups.sweep(Date.now() + 1);
    expect((await groupsOf(errorCode))[0]).toMatchObject({ occurrence_count: 3, user_count: 2, device_count: 3 });
  });

  it('counts a new user and device once when two batches (two instances) bring them at once', async () => {
    const errorCode = code();
    const users = [await issueUser(t), await issueUser(t), await issueUser(t)];
    crashBeforeCounting();
    // Each user reports from two devices, one of them shared by all; every pair is new to the group.
    for (const user of users)
      for (const device of ['shared', `own-${user.id}`])
        for (const operation of ['a', 'b'])
          await report(user, clientErrorBody(user, { error_code: errorCode, device_id: device, operation }));
    const ids = (
      (await t.app
        .get(DataSource)
        .query(
          `SELECT s.id FROM client_error_submissions s JOIN client_errors r ON r.merge_key = s.merge_key WHERE r.error_code = ? ORDER BY s.id`,
          [errorCode],
        )) as Array<{ id: string | number }>
    ).map((row) => String(row.id));
    expect(ids).toHaveLength(12);
    // Two disjoint batches that both hold every user and the shared device, counted at once.
    const repository = t.app.get(ClientErrorRollupsRepository);
    const counted = await Promise.all([
      repository.rollUp(ids.filter((_, i) => i % 2 === 0)),
      repository.rollUp(ids.filter((_, i) => i % 2 === 1)),
    ]);
    expect(counted).toEqual([6, 6]);
    jest.restoreAllMocks();
    expect(await groupsOf(errorCode)).toEqual([
      expect.objectContaining({ occurrence_count: 12, user_count: 3, device_count: 4 }),
    ]);
  });

  it('retention keeps an un-counted submission until it is counted', async () => {
    const errorCode = code();
    const user = await issueUser(t);
    crashBeforeCounting();
    const now = Date.now();
    try {
      t.clock.set(now - 40 * DAY);
      await report(user, clientErrorBody(user, { error_code: errorCode }));
    } finally {
      t.clock.set(Date.now());
      t.clock.release();
    }
    const records = t.app.get(ClientErrorRecordsService);
    // The idempotency keys' retention (older than 30 days here) passes over it...
    while ((await records.pruneSubmissionsBefore(now - 30 * DAY, 1000)) > 0);
    expect((await submissionsOf(user)).map((s) => Number(s.rolled_up))).toEqual([0]);
    jest.restoreAllMocks();
    // ...and the records' retention counts it before its record goes.
    await records.pruneRecordsBefore(now - 30 * DAY, 1);
    expect(await submissionsOf(user)).toEqual([expect.anything()]);
    expect((await submissionsOf(user)).map((s) => Number(s.rolled_up))).toEqual([1]);
    expect(await groupsOf(errorCode)).toEqual([expect.objectContaining({ occurrence_count: 1, user_count: 1 })]);
    while ((await records.pruneSubmissionsBefore(now - 30 * DAY, 1000)) > 0);
    expect(await submissionsOf(user)).toEqual([]);
  });

  it("erasure counts the user's un-counted reports, then forgets the user in every group", async () => {
    const errorCode = code();
    const [erased, other] = [await issueUser(t), await issueUser(t)];
    await report(other, clientErrorBody(other, { error_code: errorCode, device_id: 'o-1' }));
    crashBeforeCounting();
    await report(erased, clientErrorBody(erased, { error_code: errorCode, device_id: 'e-1' }));
    await report(erased, clientErrorBody(erased, { error_code: errorCode, device_id: 'e-2' }));
    jest.restoreAllMocks();
    await t.app.get(ClientErrorRecordsService).deleteOfUser(erased.id);
    expect(await submissionsOf(erased)).toEqual([]);
    expect(await groupsOf(errorCode)).toEqual([
      expect.objectContaining({ occurrence_count: 3, user_count: 1, device_count: 1 }),
    ]);
    const identities = (await t.app
      .get(DataSource)
      .query(
        'SELECT (SELECT COUNT(*) FROM client_error_group_users WHERE user_id = ?) + (SELECT COUNT(*) FROM client_error_group_devices WHERE user_id = ?) AS n',
        [erased.id, erased.id],
      )) as Array<{ n: number | string }>;
    expect(Number(identities[0].n)).toBe(0);
  });
});
