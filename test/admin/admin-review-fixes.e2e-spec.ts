// Findings of the operator console's review (1, 2, 3, 11, 12): oversized message_ids lists refused
// by their count alone, JSON null refused on the admin writes, nothing done to a dismissed group,
// no audit row for a removal that changed nothing, and the reads' filters checked consistently.
import { randomBytes, randomUUID } from 'node:crypto';
import { ApiClient, groupCid } from '../helpers/api-client';
import { expectOk } from '../helpers/assertions';
import { AdminSession, adminSession } from '../helpers/admin-client';
import { clientErrorBody } from '../helpers/factories';
import { TestApp, startTestApp } from '../helpers/test-app';
import { Row, act, auditOf, detail, expectRefused, fileReport } from './report-admin-kit';

/** 100,000 distinct message IDs: about 790 KB of JSON, under the 1 MiB body cap. */
const HUGE = Array.from({ length: 100_000 }, (_v, i) => String(i + 1));

describe('review fixes of the operator console', () => {
  let t: TestApp;
  let api: ApiClient;
  let viewer: AdminSession;
  let moderator: AdminSession;
  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
    viewer = await adminSession(t, 'viewer');
    moderator = await adminSession(t, 'moderator');
  });
  afterAll(() => t.close());

  /** A group report with two reported messages of the abuser. */
  async function groupReport() {
    const [owner, reporter, abuser] = await api.users(3);
    const groupId = await api.createGroup(owner, [reporter, abuser]);
    const mids = (await api.sendMany(abuser, groupCid(groupId), 2, 'spam')).map((m) => m.mid);
    const reportId = await fileReport(
      t,
      reporter,
      { group_id: groupId },
      { reason_code: 2, conversation_id: groupCid(groupId), message_ids: mids },
    );
    return { owner, reporter, abuser, groupId, mids, reportId };
  }

  describe('finding 1: 100,000 message_ids are refused by their count', () => {
    it.each(['user', 'group'])(
      'POST /app/sdk/reports/%s',
      async (kind) => {
        const [reporter, target] = await api.users(2);
        const groupId = await api.createGroup(reporter, [target]);
        const response = await t.http
          .post(`/app/sdk/reports/${kind}`)
          .set('Authorization', `Bearer ${reporter.token}`)
          .send({
            request_id: randomUUID(),
            reason_code: 1,
            ...(kind === 'user' ? { user_id: target.userId } : { group_id: groupId }),
            conversation_id: groupCid(groupId),
            message_ids: HUGE,
          });
        expectRefused(response, 1004, 'message_ids');
        expect(response.body.msg).toBe('message_ids: must have at most 20 items');
      },
      120_000,
    );

    it('POST /app/admin/reports/act', async () => {
      const { reportId } = await groupReport();
      const response = await act(moderator, { report_id: reportId, action: 'recall_messages', message_ids: HUGE });
      expectRefused(response, 1004, 'message_ids');
      expect(response.body.msg).toBe('message_ids: must have 1–20 items');
      expect((await detail(viewer, reportId)).report.status).toBe('pending');
    }, 120_000);

    it.each(['recall', 'delete'])(
      'POST /app/admin/messages/%s',
      async (verb) => {
        const response = await moderator.post(`/app/admin/messages/${verb}`, {
          conversation_id: '1',
          message_ids: HUGE,
        });
        expectRefused(response, 1004, 'message_ids');
        expect(response.body.msg).toBe('message_ids: must have 1–50 items');
      },
      120_000,
    );

    it('a repeated ID is named by its index', async () => {
      const response = await moderator.post('/app/admin/messages/recall', {
        conversation_id: '1',
        message_ids: ['5', '6', '5'],
      });
      expect(response.body).toEqual({ code: 1004, msg: 'message_ids[2]: is a duplicate', data: null });
    });
  });

  describe('finding 2: a JSON null is refused, not taken as absent', () => {
    it.each<[string, Row, string]>([
      ['disable_user', { duration_seconds: null, reason: 'spam' }, 'duration_seconds'],
      ['disable_user', { reason: null }, 'reason'],
      ['disable_user', { user_id: null, reason: 'spam' }, 'user_id'],
      ['recall_messages', { message_ids: null }, 'message_ids'],
      ['close', { note: null }, 'note'],
      ['close', { message_ids: null }, 'message_ids'],
      ['disable_group', { note: null }, 'note'],
    ])('reports/act %s with %j: 1004 naming the field; nothing done', async (action, extra, field) => {
      const { abuser, groupId, reportId } = await groupReport();
      expectRefused(await act(moderator, { report_id: reportId, action, ...extra }), 1004, field);
      expect((await detail(viewer, reportId)).report.status).toBe('pending');
      expect(await auditOf(viewer, 'user', abuser.userId)).toEqual([]);
      expect(await auditOf(viewer, 'group', groupId)).toEqual([]);
    });

    it('reports/transition with note null: 1004 naming note', async () => {
      const { reportId } = await groupReport();
      expectRefused(
        await moderator.post('/app/admin/reports/transition', { report_id: reportId, status: 'closed', note: null }),
        1004,
        'note',
      );
      expect((await detail(viewer, reportId)).report.status).toBe('pending');
    });

    it.each<[string, Row, string]>([
      ['users/status', { disabled: true, duration_seconds: null }, 'duration_seconds'],
      ['users/status', { disabled: true, reason: null }, 'reason'],
    ])('%s with %j: 1004 naming the field', async (path, extra, field) => {
      const user = await api.user();
      expectRefused(await moderator.post(`/app/admin/${path}`, { user_id: user.userId, ...extra }), 1004, field);
    });
  });

  describe('finding 3: a dismissed group is 1209, changing nothing', () => {
    it('reports/act disable_group and groups/status on a group its owner dismissed', async () => {
      const { owner, groupId, reportId } = await groupReport();
      expectOk(
        await t.http
          .post('/app/sdk/groups/dismiss')
          .set('Authorization', `Bearer ${owner.token}`)
          .send({ group_id: groupId }),
      );
      expectRefused(await act(moderator, { report_id: reportId, action: 'disable_group' }), 1209, 'group_id');
      for (const disabled of [true, false]) {
        expectRefused(
          await moderator.post('/app/admin/groups/status', { group_id: groupId, disabled }),
          1209,
          'group_id',
        );
      }
      expect((await detail(viewer, reportId)).report.status).toBe('pending');
      expect(await auditOf(viewer, 'group', groupId)).toEqual([]);
    });
  });

  describe('finding 11: a removal that changes nothing writes no audit row', () => {
    it('groups/members/remove of a user who left', async () => {
      const [owner, member] = await api.users(2);
      const groupId = await api.createGroup(owner, [member]);
      await api.leaveGroup(member, groupId);
      const reply = expectOk<Row>(
        await moderator.post('/app/admin/groups/members/remove', { group_id: groupId, user_id: member.userId }),
      );
      expect(reply).toMatchObject({ removed: false, event_id: null });
      expect(await auditOf(viewer, 'group', groupId)).toEqual([]);
    });

    it('a removal that happens is audited', async () => {
      const [owner, member] = await api.users(2);
      const groupId = await api.createGroup(owner, [member]);
      expectOk(await moderator.post('/app/admin/groups/members/remove', { group_id: groupId, user_id: member.userId }));
      const rows = await auditOf(viewer, 'group', groupId);
      expect(rows.map((r) => r.action)).toEqual(['group.member_removed']);
      expect(rows[0]).toMatchObject({ before: { user_id: member.userId, member: true } });
    });

    it('a transfer to the current owner is refused, with no audit row', async () => {
      const [owner, member] = await api.users(2);
      const groupId = await api.createGroup(owner, [member]);
      expectRefused(
        await moderator.post('/app/admin/groups/transfer', { group_id: groupId, user_id: owner.userId }),
        1209,
        'user_id',
      );
      expect(await auditOf(viewer, 'group', groupId)).toEqual([]);
    });
  });

  describe('finding 12: the reads check their filters', () => {
    it.each<[string, Record<string, string>, string, string]>([
      ['/app/admin/reports', { reason: '9' }, 'reason', 'reason: must be a reason code from 1 to 8 (spec 4.3)'],
      ['/app/admin/reports', { reason: '0' }, 'reason', 'reason: must be a reason code from 1 to 8 (spec 4.3)'],
      ['/app/admin/reports', { from: '1', to: '0' }, 'to', 'to: must be after from'],
      ['/app/admin/reports', { from: '5', to: '5' }, 'to', 'to: must be after from'],
      [
        '/app/admin/users',
        { open_reports: 'false' },
        'open_reports',
        'open_reports: must be true (leave it out for all)',
      ],
      [
        '/app/admin/groups',
        { open_reports: 'false' },
        'open_reports',
        'open_reports: must be true (leave it out for all)',
      ],
      ['/app/admin/users/export', { cursor: 'x' }, 'cursor', 'cursor: the export takes no cursor'],
      ['/app/admin/groups/export', { cursor: 'x' }, 'cursor', 'cursor: the export takes no cursor'],
    ])('GET %s %j: 1004 %s', async (path, query, field, msg) => {
      const response = await moderator.get(path, query);
      expectRefused(response, 1004, field);
      expect(response.body.msg).toBe(msg);
    });

    it('reports?reason=8 is a filter', async () => {
      expectOk(await viewer.get('/app/admin/reports', { reason: '8' }));
    });

    it('client-errors?build_id= lists the groups without a build, as client-errors/group takes it', async () => {
      const user = await api.user();
      const errorCode = `e2e.${randomBytes(5).toString('hex')}`;
      for (const build of [null, '9.9.9']) {
        expectOk(
          await t.http
            .post('/app/sdk/client-errors')
            .set('Authorization', `Bearer ${user.token}`)
            .send(clientErrorBody({ userId: user.userId }, { error_code: errorCode, build_id: build })),
        );
      }
      const page = expectOk<{ items: Row[] }>(
        await viewer.get('/app/admin/client-errors', { error_code: errorCode, build_id: '' }),
      );
      expect(page.items.map((g) => g.build_id)).toEqual([null]);
      expectOk(
        await viewer.get('/app/admin/client-errors/group', {
          error_code: errorCode,
          platform: 'android',
          build_id: '',
        }),
      );
    });
  });
});
