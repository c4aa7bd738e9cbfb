// Reading around a report (issue 25): a reported message's context exactly as the reporter can
// see it (never before they joined or after they left; tombstones), audited; and the reports
// grouped by target, counted and paged.
import { ApiClient, IssuedUser, friendCid, groupCid } from '../helpers/api-client';
import { expectOk } from '../helpers/assertions';
import { AdminSession, adminSession } from '../helpers/admin-client';
import { IsolatedDatabase, isolatedDatabase } from '../helpers/isolated-database';
import { TestApp, startTestApp } from '../helpers/test-app';
import { Row, auditOf, detail, expectRefused, fileReport } from './report-admin-kit';

type Msg = { mid: string; status: string; content: { text?: string } | null };
type Context = { before: Msg[]; message: Msg; after: Msg[]; has_more_before: boolean; has_more_after: boolean };

describe('report context and reports by target (issue 25)', () => {
  // A database of the file's own: the reports by target are paged through whole and checked for
  // order and repeats, and on the shared MySQL database other files' reports are filed and closed
  // meanwhile (a target whose open count drops behind the cursor shows again on a later page).
  let database: IsolatedDatabase;
  let t: TestApp;
  let api: ApiClient;
  let viewer: AdminSession;
  let moderator: AdminSession;
  beforeAll(async () => {
    database = await isolatedDatabase();
    t = await startTestApp(database.env);
    api = new ApiClient(t);
    viewer = await adminSession(t, 'viewer');
    moderator = await adminSession(t, 'moderator');
  });
  afterAll(async () => {
    await t?.close();
    await database?.drop();
  });

  const texts = (list: Msg[]): string[] => list.map((m) => m.content?.text ?? `(${m.status})`);
  const context = async (reportId: string, messageId: string): Promise<Context> =>
    expectOk<Context>(
      await moderator.get('/app/admin/reports/context', { report_id: reportId, message_id: messageId }),
    );

  it('shows at most 20 messages each side, only those the reporter could see, and audits the viewing', async () => {
    const [owner, reporter, sender] = await api.users(3);
    const groupId = await api.createGroup(owner, [sender]);
    const cid = groupCid(groupId);
    await api.sendMany(sender, cid, 3, 'before-join');
    await api.addMembers(owner, groupId, [reporter]);
    const seen = await api.sendMany(sender, cid, 30, 'm');
    const mid = (n: number): string => seen[n - 1].mid;
    await api.recall(sender, cid, mid(24));
    const reportId = await fileReport(
      t,
      reporter,
      { user_id: sender.userId },
      {
        conversation_id: cid,
        message_ids: [mid(2), mid(25)],
      },
    );
    await api.leaveGroup(reporter, groupId);
    await api.sendMany(sender, cid, 3, 'after-leave');

    const late = await context(reportId, mid(25));
    expect(texts(late.before)).toEqual([...Array.from({ length: 19 }, (_, i) => `m ${i + 5}`), '(recalled)']);
    expect(texts([late.message])).toEqual(['m 25']);
    expect(texts(late.after)).toEqual(['m 26', 'm 27', 'm 28', 'm 29', 'm 30']);
    expect({ before: late.has_more_before, after: late.has_more_after }).toEqual({ before: true, after: false });

    const early = await context(reportId, mid(2));
    expect(texts(early.before)).toEqual(['m 1']);
    expect(texts(early.after)).toEqual(
      Array.from({ length: 20 }, (_, i) => (i + 3 === 24 ? '(recalled)' : `m ${i + 3}`)),
    );
    expect({ before: early.has_more_before, after: early.has_more_after }).toEqual({ before: false, after: true });

    const history = (await detail(viewer, reportId)).history;
    expect(history.map((h) => [h.action, h.report_id, (h.after as Row).message_id])).toEqual([
      ['report.context_viewed', reportId, mid(2)],
      ['report.context_viewed', reportId, mid(25)],
    ]);
    expect((await auditOf(viewer, 'report', reportId)).map((r) => r.admin)).toEqual([
      moderator.username,
      moderator.username,
    ]);
  });

  it('refuses a message the report does not name, a report without messages, and a viewer, auditing nothing', async () => {
    const [reporter, target] = await api.users(2);
    await api.befriend(reporter, target);
    const [m1, m2] = await api.sendMany(target, friendCid(reporter), 2);
    const withEvidence = await fileReport(
      t,
      reporter,
      { user_id: target.userId },
      {
        conversation_id: friendCid(target),
        message_ids: [m1.mid],
      },
    );
    const without = await fileReport(t, reporter, { user_id: target.userId });
    const get = (s: AdminSession, q: Record<string, string>) => s.get('/app/admin/reports/context', q);
    expectRefused(await get(moderator, { report_id: withEvidence, message_id: m2.mid }), 1004, 'message_id');
    expectRefused(await get(moderator, { report_id: without, message_id: m1.mid }), 1004, 'report_id');
    expectRefused(await get(moderator, { report_id: '999999999999', message_id: m1.mid }), 1004, 'report_id');
    expectRefused(await get(moderator, { report_id: withEvidence, message_id: 'x' }), 1004, 'message_id');
    expect((await get(viewer, { report_id: withEvidence, message_id: m1.mid })).status).toBe(403);
    expect((await detail(viewer, withEvidence)).history).toEqual([]);
    expect((await detail(viewer, without)).history).toEqual([]);
  });

  describe('reports grouped by target', () => {
    type Target = Row & { target_type: string; target_id: string; report_count: number };
    async function all(query: Record<string, string>): Promise<Target[]> {
      const out: Target[] = [];
      let cursor: string | undefined;
      do {
        const page = expectOk<{ items: Target[]; next_cursor: string | null; has_more: boolean }>(
          await viewer.get('/app/admin/reports/targets', { ...query, ...(cursor ? { cursor } : {}) }),
        );
        out.push(...page.items);
        cursor = page.has_more ? (page.next_cursor ?? undefined) : undefined;
      } while (cursor);
      return out;
    }

    let busy: IssuedUser;
    let quiet: IssuedUser;
    let reporters: IssuedUser[];
    let groupId: string;
    beforeAll(async () => {
      [busy, quiet, ...reporters] = await api.users(5);
      // More targets than a page (50), so that the lists below are paged.
      for (const other of await api.users(50)) await fileReport(t, reporters[2], { user_id: other.userId });
      groupId = await api.createGroup(reporters[0], [reporters[1]]);
      t.clock.advance(1000);
      await fileReport(t, reporters[0], { user_id: busy.userId }, { reason_code: 3 });
      t.clock.advance(1000);
      await fileReport(t, reporters[1], { user_id: busy.userId }, { reason_code: 1 });
      t.clock.advance(1000);
      await fileReport(t, reporters[2], { user_id: busy.userId }, { reason_code: 1 });
      t.clock.advance(1000);
      await fileReport(t, reporters[2], { user_id: busy.userId }, { reason_code: 3 });
      t.clock.advance(1000);
      const closed = await fileReport(t, reporters[0], { user_id: busy.userId }, { reason_code: 3 });
      expectOk(await moderator.post('/app/admin/reports/transition', { report_id: closed, status: 'closed' }));
      t.clock.advance(1000);
      await fileReport(t, reporters[1], { group_id: groupId }, { reason_code: 2 });
      t.clock.advance(1000);
      await fileReport(t, reporters[0], { user_id: quiet.userId }, { reason_code: 5 });
    });

    it('counts open reports, distinct reporters, first and last, and the top reason per target, by count', async () => {
      const targets = await all({ status: 'open', sort: 'count' });
      const index = (id: string) => targets.findIndex((x) => x.target_id === id);
      const b = targets[index(busy.userId)];
      expect(b).toEqual({
        target_type: 'user',
        target_id: busy.userId,
        report_count: 4,
        open_count: 4,
        reporter_count: 3,
        first_reporter_ids: [reporters[0].userId, reporters[1].userId, reporters[2].userId],
        first_report_at: expect.any(Number),
        last_report_at: expect.any(Number),
        top_reason_code: 1,
        top_reason_name: 'harassment',
      });
      expect((b.last_report_at as number) - (b.first_report_at as number)).toBeGreaterThanOrEqual(3000);
      expect(targets[index(groupId)]).toMatchObject({
        target_type: 'group',
        report_count: 1,
        top_reason_name: 'inappropriate content',
      });
      expect(index(busy.userId)).toBeLessThan(index(quiet.userId));
      // Ordered by count, then target: never a target twice across pages.
      for (let i = 1; i < targets.length; i += 1)
        expect(targets[i - 1].report_count).toBeGreaterThanOrEqual(targets[i].report_count);
      expect(new Set(targets.map((x) => `${x.target_type}/${x.target_id}`)).size).toBe(targets.length);
    });

    it('status=all counts closed reports too; sort=latest puts the newest first', async () => {
      const everything = await all({ status: 'all', sort: 'latest' });
      expect(everything.find((x) => x.target_id === busy.userId)).toMatchObject({
        report_count: 5,
        open_count: 4,
        reporter_count: 3,
        top_reason_code: 3,
      });
      const latest = everything.map((x) => x.target_id);
      expect(latest.indexOf(quiet.userId)).toBeLessThan(latest.indexOf(busy.userId));
      for (let i = 1; i < everything.length; i += 1)
        expect(everything[i - 1].last_report_at).toBeGreaterThanOrEqual(everything[i].last_report_at as number);
    });

    it('refuses bad filters and a cursor of other filters (1004 naming the field)', async () => {
      expectRefused(await viewer.get('/app/admin/reports/targets', { status: 'pending' }), 1004, 'status');
      expectRefused(await viewer.get('/app/admin/reports/targets', { sort: 'name' }), 1004, 'sort');
      const first = expectOk<{ next_cursor: string | null }>(
        await viewer.get('/app/admin/reports/targets', { status: 'all' }),
      );
      if (first.next_cursor)
        expectRefused(
          await viewer.get('/app/admin/reports/targets', { status: 'open', cursor: first.next_cursor }),
          1004,
          'cursor',
        );
      expectRefused(await viewer.get('/app/admin/reports/targets', { cursor: 'x.y' }), 1004, 'cursor');
    });
  });
});
