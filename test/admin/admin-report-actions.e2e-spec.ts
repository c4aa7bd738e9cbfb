// Moderation from a report (issue 25): each action's effect as the SDK sees it, the audit rows
// linked both ways, actions that do not fit the report refused changing nothing, two moderators
// at once, and the viewer refused every write.
import { ApiClient, IssuedUser, friendCid, groupCid } from '../helpers/api-client';
import { expectOk } from '../helpers/assertions';
import { AdminSession, adminSession } from '../helpers/admin-client';
import { DataSource } from 'typeorm';
import { ReportQueue } from '../../src/reports/report-queue.service';
import { IsolatedDatabase, isolatedDatabase } from '../helpers/isolated-database';
import { TestApp, hostAuth, startTestApp } from '../helpers/test-app';
import { Row, act, auditOf, detail, expectRefused, expectRoleRefused, fileReport } from './report-admin-kit';

describe('moderation from a report (issue 25)', () => {
  // A database of the file's own: every instance flips back the timed disables that have lapsed
  // by its own clock, once a minute, and on the shared MySQL database another file's instance,
  // its clock held minutes or days ahead, could end a disable here between the act and the check.
  let database: IsolatedDatabase;
  let t: TestApp;
  let api: ApiClient;
  let viewer: AdminSession;
  let moderator: AdminSession;
  let second: AdminSession;
  beforeAll(async () => {
    database = await isolatedDatabase();
    t = await startTestApp(database.env);
    api = new ApiClient(t);
    viewer = await adminSession(t, 'viewer');
    moderator = await adminSession(t, 'moderator');
    second = await adminSession(t, 'moderator');
  });
  afterAll(async () => {
    await t?.close();
    await database?.drop();
  });

  /** A user report by `reporter` against `target` with evidence from their one-to-one conversation. */
  async function directReport(): Promise<{
    reporter: IssuedUser;
    target: IssuedUser;
    mids: string[];
    reportId: string;
  }> {
    const [reporter, target] = await api.users(2);
    await api.befriend(reporter, target);
    const mids = (await api.sendMany(target, friendCid(reporter), 2, 'abuse')).map((m) => m.mid);
    const reportId = await fileReport(
      t,
      reporter,
      { user_id: target.userId },
      {
        reason_code: 7,
        conversation_id: friendCid(target),
        message_ids: mids,
      },
    );
    return { reporter, target, mids, reportId };
  }

  /** A group with an owner, the reporter and an abuser; the abuser's messages reported as `kind`. */
  async function groupReport(kind: 'user' | 'group') {
    const [owner, reporter, abuser] = await api.users(3);
    const groupId = await api.createGroup(owner, [reporter, abuser]);
    const mids = (await api.sendMany(abuser, groupCid(groupId), 2, 'spam')).map((m) => m.mid);
    const evidence = { reason_code: 2, conversation_id: groupCid(groupId), message_ids: mids };
    const reportId =
      kind === 'user'
        ? await fileReport(t, reporter, { user_id: abuser.userId }, evidence)
        : await fileReport(t, reporter, { group_id: groupId }, evidence);
    return { owner, reporter, abuser, groupId, mids, reportId };
  }

  it('disables the reported user for a day with a reason: their SDK calls answer 1003 with it; audited both ways', async () => {
    const { target, reportId } = await directReport();
    const reply = expectOk<Row>(
      await act(moderator, {
        report_id: reportId,
        action: 'disable_user',
        duration_seconds: 86400,
        reason: 'Abusive messages (report 1)',
      }),
    );
    expect(reply).toMatchObject({
      action: 'disable_user',
      target_type: 'user',
      target_id: target.userId,
      message_ids: [],
      status_changed: true,
      report: { report_id: reportId, status: 'reviewed', reason_code: 7, reason_name: 'chat content violation' },
    });
    const refused = await api.raw.sync(target);
    expect(refused.body).toEqual({ code: 1003, msg: 'Abusive messages (report 1)', data: null });

    // The user's audit row names the report, and the report's history lists it beside its own move.
    const userRows = await auditOf(viewer, 'user', target.userId);
    expect(userRows).toHaveLength(1);
    expect(userRows[0]).toMatchObject({ target_type: 'user', target_id: target.userId, report_id: reportId });
    const { report, history } = await detail(viewer, reportId);
    expect(report.status).toBe('reviewed');
    expect(history.map((h) => [h.action, h.target_type, h.target_id, h.report_id])).toEqual([
      ['report.transitioned', 'report', reportId, reportId],
      [userRows[0].action, 'user', target.userId, reportId],
    ]);
    expect(history[0]).toMatchObject({
      before: { status: 'pending' },
      after: { status: 'reviewed', by_action: 'disable_user' },
    });
    // A day later the disable has lapsed by itself.
    t.clock.advance(25 * 3600 * 1000);
    try {
      expect((await api.raw.sync(target)).body.code).toBe(0);
    } finally {
      t.clock.advance(-25 * 3600 * 1000);
    }
  });

  it('disables for good when no duration is given', async () => {
    const { target, reportId } = await directReport();
    expectOk(await act(moderator, { report_id: reportId, action: 'disable_user', reason: 'Fraud' }));
    t.clock.advance(2 * 24 * 3600 * 1000);
    try {
      expect((await api.raw.sync(target)).body).toEqual({ code: 1003, msg: 'Fraud', data: null });
    } finally {
      t.clock.advance(-2 * 24 * 3600 * 1000);
    }
  });

  it('mutes the reported user in the group of the evidence: sending answers 1203 while muted', async () => {
    const { abuser, groupId, reportId } = await groupReport('user');
    expect((await api.raw.sendText(abuser, groupCid(groupId), 'before')).body.code).toBe(0);
    const reply = expectOk<Row>(
      await act(moderator, { report_id: reportId, action: 'mute_member', duration_seconds: 3600 }),
    );
    expect(reply).toMatchObject({ action: 'mute_member', target_type: 'user', target_id: abuser.userId });
    const refused = await api.raw.sendText(abuser, groupCid(groupId), 'after');
    expect(refused.body.code).toBe(1203);
    const { history } = await detail(viewer, reportId);
    expect(history.filter((h) => h.report_id === reportId)).toHaveLength(2);
  });

  it("a group report acts on a reported message's sender, named by user_id, and on no one else", async () => {
    const { owner, abuser, groupId, reportId } = await groupReport('group');
    expectRefused(
      await act(moderator, { report_id: reportId, action: 'mute_member', duration_seconds: 60 }),
      1004,
      'user_id',
    );
    expectRefused(
      await act(moderator, { report_id: reportId, action: 'mute_member', duration_seconds: 60, user_id: owner.userId }),
      1004,
      'user_id',
    );
    expectOk(
      await act(moderator, {
        report_id: reportId,
        action: 'mute_member',
        duration_seconds: 60,
        user_id: abuser.userId,
      }),
    );
    expect((await api.raw.sendText(abuser, groupCid(groupId), 'x')).body.code).toBe(1203);
    expect((await api.raw.sendText(owner, groupCid(groupId), 'x')).body.code).toBe(0);
  });

  it("recalls a chosen reported message and deletes the rest: the reporter's window shows tombstones", async () => {
    const { reporter, target, mids, reportId } = await directReport();
    const recalled = expectOk<Row>(
      await act(moderator, { report_id: reportId, action: 'recall_messages', message_ids: [mids[1]] }),
    );
    expect(recalled).toMatchObject({
      target_type: 'conversation',
      target_id: friendCid(target),
      message_ids: [mids[1]],
    });
    let window = await api.latest(reporter, friendCid(target));
    const status = () => new Map(window.messages.map((m) => [m.mid, m.status]));
    expect([status().get(mids[0]), status().get(mids[1])]).toEqual(['normal', 'recalled']);
    expectOk(await act(moderator, { report_id: reportId, action: 'delete_messages', message_ids: [mids[0]] }));
    window = await api.latest(reporter, friendCid(target));
    expect([status().get(mids[0]), status().get(mids[1])]).toEqual(['deleted', 'recalled']);
    // The second action found the report reviewed already: it stays, and one move is in the history.
    const { report, history } = await detail(viewer, reportId);
    expect(report.status).toBe('reviewed');
    expect(history.filter((h) => h.action === 'report.transitioned')).toHaveLength(1);
  });

  it('disables the reported group (1218 for its members) and dismisses another', async () => {
    const a = await groupReport('group');
    expect(expectOk<Row>(await act(moderator, { report_id: a.reportId, action: 'disable_group' }))).toMatchObject({
      target_type: 'group',
      target_id: a.groupId,
    });
    expect((await api.raw.sendText(a.owner, groupCid(a.groupId), 'x')).body.code).toBe(1218);
    expect((await auditOf(viewer, 'group', a.groupId))[0]).toMatchObject({ report_id: a.reportId });

    const b = await groupReport('group');
    expectOk(await act(moderator, { report_id: b.reportId, action: 'dismiss_group' }));
    const send = await api.raw.sendText(b.owner, groupCid(b.groupId), 'x');
    expect(send.body.code).not.toBe(0);
    expect(await api.myGroupIds(b.owner)).not.toContain(b.groupId);
    expect((await auditOf(viewer, 'group', b.groupId))[0]).toMatchObject({ report_id: b.reportId });
  });

  it('closes with a note; a closed report cannot be closed again, and later actions leave it closed', async () => {
    const { target, reportId } = await directReport();
    const closed = expectOk<Row>(
      await act(moderator, { report_id: reportId, action: 'close', note: 'warned by mail' }),
    );
    expect(closed).toMatchObject({ report: { status: 'closed' }, status_changed: true, target_type: 'report' });
    expectRefused(await act(second, { report_id: reportId, action: 'close' }), 1004, 'action');
    const late = expectOk<Row>(await act(moderator, { report_id: reportId, action: 'disable_user', reason: 'again' }));
    expect(late).toMatchObject({ report: { status: 'closed' }, status_changed: false });
    expect((await api.raw.sync(target)).body.code).toBe(1003);
    const { history } = await detail(viewer, reportId);
    expect(history.map((h) => h.action)).toEqual([expect.any(String), 'report.transitioned']);
    expect(history[1]).toMatchObject({ after: { status: 'closed', note: 'warned by mail' } });
  });

  it('refuses an action that does not fit the report (1004 naming the field) and changes nothing', async () => {
    const { reporter, target, mids, reportId } = await directReport();
    const noEvidence = await fileReport(t, reporter, { user_id: target.userId });
    const cases: Array<[string, Row, string]> = [
      [reportId, { action: 'dismiss_group' }, 'action'],
      [reportId, { action: 'disable_group' }, 'action'],
      [reportId, { action: 'mute_member', duration_seconds: 60 }, 'action'],
      [noEvidence, { action: 'recall_messages' }, 'action'],
      [reportId, { action: 'disable_user' }, 'reason'],
      [reportId, { action: 'disable_user', reason: 'x', message_ids: [mids[0]] }, 'message_ids'],
      [reportId, { action: 'disable_user', reason: 'x', user_id: reporter.userId }, 'user_id'],
      [reportId, { action: 'recall_messages', message_ids: ['999999999999'] }, 'message_ids'],
      [reportId, { action: 'recall_messages', message_ids: [] }, 'message_ids'],
      [reportId, { action: 'recall_messages', duration_seconds: 60 }, 'duration_seconds'],
      [reportId, { action: 'close', reason: 'x' }, 'reason'],
      [reportId, { action: 'disable_user', reason: 'x', duration_seconds: 0 }, 'duration_seconds'],
      [reportId, { action: 'disable_user', reason: 'x', duration_seconds: '60' }, 'duration_seconds'],
      [reportId, { action: 'disable_user', reason: '   ' }, 'reason'],
      [reportId, { action: 'disable_user', reason: 'x', duration_seconds: 30 }, 'duration_seconds'],
      [reportId, { action: 'disable_user', reason: 'x', duration_seconds: 2 * 31_536_000 }, 'duration_seconds'],
      [reportId, { action: 'disable_user', reason: 'x', note: 'a note' }, 'note'],
      [reportId, { action: 'ban' }, 'action'],
      [reportId, { action: 'close', notes: 'typo' }, 'notes'],
      ['999999999999', { action: 'close' }, 'report_id'],
    ];
    for (const [id, body, field] of cases) {
      const response = await act(moderator, { report_id: id, ...body });
      expect({ body, msg: response.body.msg as string, code: response.body.code }).toEqual({
        body,
        msg: expect.stringMatching(new RegExp(`^${field}: `)),
        code: 1004,
      });
    }
    const muteTooLong = await groupReport('user');
    expectRefused(
      await act(moderator, { report_id: muteTooLong.reportId, action: 'mute_member', duration_seconds: 31 * 86400 }),
      1004,
      'duration_seconds',
    );
    expect((await api.raw.sync(target)).body.code).toBe(0);
    expect((await api.latest(reporter, friendCid(target))).messages.map((m) => m.status)).toEqual(['normal', 'normal']);
    for (const id of [reportId, noEvidence, muteTooLong.reportId]) {
      const { report, history } = await detail(viewer, id);
      expect({ id, status: report.status, history }).toEqual({ id, status: 'pending', history: [] });
    }
    expect(await auditOf(viewer, 'user', target.userId)).toEqual([]);
  });

  it("states disable_user's limits as the service applies them, and trims the reason's edge spaces", async () => {
    const { target, reportId } = await directReport();
    for (const duration of [30, 400_000_000]) {
      const response = await act(moderator, {
        report_id: reportId,
        action: 'disable_user',
        reason: 'x',
        duration_seconds: duration,
      });
      expectRefused(response, 1004, 'duration_seconds');
      expect(response.body.msg).toContain('31536000');
      expect(response.body.msg).not.toContain('315360000');
    }
    const reply = expectOk<Row>(
      await act(moderator, { report_id: reportId, action: 'disable_user', reason: '  padded  ', duration_seconds: 60 }),
    );
    expect(reply).toMatchObject({ target_id: target.userId, report: { status: 'reviewed' } });
    expect((await api.raw.sync(target)).body).toEqual({ code: 1003, msg: 'padded', data: null });
  });

  it("a timed disable_user never shortens the host's disable for good: 1004, the report stays pending", async () => {
    const { target, reportId } = await directReport();
    expectOk(
      await t.http
        .post('/app/sdk/users/status')
        .set(...hostAuth())
        .send({ user_id: target.userId, disabled: true }),
    );
    const response = await act(moderator, {
      report_id: reportId,
      action: 'disable_user',
      duration_seconds: 86400,
      reason: 'spam',
    });
    expect(response.body).toEqual({
      code: 1004,
      msg: 'duration_seconds: the user is already disabled for good; enable first',
      data: null,
    });
    t.clock.advance(2 * 24 * 3600 * 1000);
    try {
      expect((await api.raw.sync(target)).body.code).toBe(1003);
    } finally {
      t.clock.advance(-2 * 24 * 3600 * 1000);
    }
    const { report, history } = await detail(viewer, reportId);
    expect({ status: report.status, history }).toEqual({ status: 'pending', history: [] });
    // Without a duration (for good, with the operator's reason) it acts.
    expectOk(await act(moderator, { report_id: reportId, action: 'disable_user', reason: 'spam' }));
    expect((await api.raw.sync(target)).body).toEqual({ code: 1003, msg: 'spam', data: null });
  });

  it('a user report cannot disable or dismiss the group its evidence is from; it can mute there', async () => {
    const { owner, abuser, groupId, reportId } = await groupReport('user');
    for (const action of ['disable_group', 'dismiss_group'])
      expectRefused(await act(moderator, { report_id: reportId, action }), 1004, 'action');
    expect((await api.raw.sendText(owner, groupCid(groupId), 'still here')).body.code).toBe(0);
    expect(await auditOf(viewer, 'group', groupId)).toEqual([]);
    expect((await detail(viewer, reportId)).report.status).toBe('pending');
    expectOk(await act(moderator, { report_id: reportId, action: 'mute_member', duration_seconds: 60 }));
    expect((await api.raw.sendText(abuser, groupCid(groupId), 'muted')).body.code).toBe(1203);
  });

  it('the direct endpoints take no report_id: no report history can be forged from them', async () => {
    const { reporter, target, mids, reportId } = await directReport();
    const inGroup = await groupReport('user');
    const member = { group_id: inGroup.groupId, user_id: inGroup.abuser.userId, report_id: inGroup.reportId };
    const conversationId = String(
      (
        (await t.app.get(DataSource).query('SELECT conversation_ref FROM reports WHERE id = ?', [reportId])) as Array<{
          conversation_ref: unknown;
        }>
      )[0].conversation_ref,
    );
    for (const [path, body] of [
      ['/app/admin/users/status', { user_id: target.userId, disabled: true, report_id: reportId }],
      ['/app/admin/messages/recall', { conversation_id: conversationId, message_ids: mids, report_id: reportId }],
      ['/app/admin/messages/delete', { conversation_id: conversationId, message_ids: mids, report_id: reportId }],
      ['/app/admin/groups/members/mute', { ...member, duration_seconds: 60 }],
      ['/app/admin/groups/members/remove', member],
      ['/app/admin/groups/transfer', member],
    ] as Array<[string, Row]>)
      expectRefused(await moderator.post(path, body), 1004, 'report_id');
    expect((await api.raw.sync(target)).body.code).toBe(0);
    expect((await api.latest(reporter, friendCid(target))).messages.map((m) => m.status)).toEqual(['normal', 'normal']);
    const { report, history } = await detail(viewer, reportId);
    expect({ status: report.status, history }).toEqual({ status: 'pending', history: [] });
    expect((await detail(viewer, inGroup.reportId)).history).toEqual([]);
    expect((await api.raw.sendText(inGroup.abuser, groupCid(inGroup.groupId), 'still a member')).body.code).toBe(0);
  });

  it('two moderators acting at once: one effect, the report moved once, both histories consistent', async () => {
    const { target, reportId } = await directReport();
    const replies = await Promise.all([
      act(moderator, { report_id: reportId, action: 'disable_user', reason: 'spam' }),
      act(second, { report_id: reportId, action: 'disable_user', reason: 'spam' }),
    ]);
    for (const reply of replies) expect(reply.body.code).toBe(0);
    expect(replies.map((r) => (r.body.data as Row).status_changed).sort()).toEqual([false, true]);
    expect((await api.raw.sync(target)).body).toEqual({ code: 1003, msg: 'spam', data: null });
    const { report, history } = await detail(viewer, reportId);
    expect(report.status).toBe('reviewed');
    expect(history.filter((h) => h.action === 'report.transitioned')).toHaveLength(1);
    // Every row about the user names the report.
    for (const row of await auditOf(viewer, 'user', target.userId)) expect(row.report_id).toBe(reportId);

    const { mids, reportId: other, reporter, target: sender } = await directReport();
    const recalls = await Promise.all([
      act(moderator, { report_id: other, action: 'recall_messages' }),
      act(second, { report_id: other, action: 'recall_messages' }),
    ]);
    expect(recalls.some((r) => r.body.code === 0)).toBe(true);
    const window = await api.latest(reporter, friendCid(sender));
    expect(window.messages.filter((m) => mids.includes(m.mid)).map((m) => m.status)).toEqual(['recalled', 'recalled']);
    expect((await detail(viewer, other)).history.filter((h) => h.action === 'report.transitioned')).toHaveLength(1);
  });

  it("the action and the report's move commit together: a move that fails undoes the action", async () => {
    const { target, mids, reportId, reporter } = await directReport();
    const queue = t.app.get(ReportQueue);
    const failing = () =>
      jest.spyOn(queue, 'transition').mockRejectedValueOnce(new Error('injected failure of the report move'));
    failing();
    expect((await act(moderator, { report_id: reportId, action: 'disable_user', reason: 'spam' })).body.code).not.toBe(
      0,
    );
    expect((await api.raw.sync(target)).body.code).toBe(0);
    failing();
    expect((await act(moderator, { report_id: reportId, action: 'recall_messages' })).body.code).not.toBe(0);
    const window = await api.latest(reporter, friendCid(target));
    expect(window.messages.filter((m) => mids.includes(m.mid)).map((m) => m.status)).toEqual(['normal', 'normal']);
    const { report, history } = await detail(viewer, reportId);
    expect({ status: report.status, history }).toEqual({ status: 'pending', history: [] });
    expect(await auditOf(viewer, 'user', target.userId)).toEqual([]);
    // Without the failure the same action goes through, moving the report with it.
    expect(
      expectOk<Row>(await act(moderator, { report_id: reportId, action: 'disable_user', reason: 'spam' })),
    ).toMatchObject({
      status_changed: true,
      report: { status: 'reviewed' },
    });
  });

  it('a viewer is refused every action and the context, and nothing changes', async () => {
    const { target, mids, reportId } = await directReport();
    for (const body of [
      { action: 'disable_user', reason: 'x' },
      { action: 'recall_messages' },
      { action: 'close', note: 'x' },
    ])
      expectRoleRefused(await act(viewer, { report_id: reportId, ...body }));
    expectRoleRefused(await viewer.get('/app/admin/reports/context', { report_id: reportId, message_id: mids[0] }));
    expect((await api.raw.sync(target)).body.code).toBe(0);
    const { report, history } = await detail(viewer, reportId);
    expect({ status: report.status, history }).toEqual({ status: 'pending', history: [] });
    // The viewer still reads the queue, the detail (with the evidence) and the grouping.
    expect((await viewer.get('/app/admin/reports/targets')).body.code).toBe(0);
  });

  it('names reasons in the queue and the detail, and the audit log links rows back to their report', async () => {
    const { reportId, target } = await directReport();
    const page = expectOk<{ items: Row[] }>(
      await viewer.get('/app/admin/reports', { target_type: 'user', reason: '7', status: 'pending' }),
    );
    expect(page.items.every((r) => r.reason_name === 'chat content violation')).toBe(true);
    expectOk(await act(moderator, { report_id: reportId, action: 'disable_user', reason: 'r' }));
    const rows = expectOk<{ items: Row[] }>(
      await viewer.get('/app/admin/audit', { target_type: 'report', target_id: reportId }),
    ).items;
    expect(rows.map((r) => r.report_id)).toEqual([reportId]);
    const other = expectOk<{ items: Row[] }>(
      await viewer.get('/app/admin/audit', { target_type: 'user', target_id: target.userId }),
    ).items;
    expect(other.map((r) => r.report_id)).toEqual([reportId]);
  });
});
