// Black-box tests of the group and user report endpoints (spec 2.1, 2.6, 3, 4.3, 4.4, 7, 8),
// written from the specification. Friendships, groups and the messages cited as evidence are made
// through their endpoints (disabling a group, which has none, through the repository); SQL only
// reads the stored reports.
import { randomBytes } from 'node:crypto';
import { TestApp, bearer, randomGroupId, randomUserId, startTestApp } from '../helpers/test-app';
import { ApiClient, Body } from '../helpers/api-client';
import { expectFail } from '../helpers/assertions';
import { Factories } from '../helpers/factories';
import { expectReport, reportHelpers, requestId } from './report-kit';

describe('Reports (spec 4.3, 4.4)', () => {
  let t: TestApp;
  let api: ApiClient;
  let factories: Factories;

  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
    factories = new Factories(t, api);
  });
  afterAll(() => t.close());

  const { stored, makeGroup, message } = reportHelpers(() => ({ t, api, factories }));

  describe('POST /app/sdk/reports/user: creation and target checks', () => {
    it('creates a pending report with created_at in Unix ms, no-store, and stores it for the reporter', async () => {
      const reporter = await api.user();
      const target = await api.user();
      const id = requestId();
      const before = t.clock.now();
      const response = await api.raw.reportUser(reporter, { user_id: target.userId, request_id: id, reason_code: 1 });
      const after = t.clock.now();
      expectReport(response, id, true);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.body.data.created_at).toBeGreaterThanOrEqual(before);
      expect(response.body.data.created_at).toBeLessThanOrEqual(after);
      const rows = await stored(reporter, id);
      expect(rows).toHaveLength(1);
      expect(rows[0].status).toBe('pending');
      expect(rows[0].description).toBe('');
      expect(Number(rows[0].reason_code)).toBe(1);
      expect(Number(rows[0].created_at)).toBe(response.body.data.created_at);
    });

    it('accepts every documented reason code 1 to 8', async () => {
      const reporter = await api.user();
      const target = await api.user();
      for (let reason = 1; reason <= 8; reason += 1) {
        const id = requestId();
        expectReport(
          await api.raw.reportUser(reporter, { user_id: target.userId, request_id: id, reason_code: reason }),
          id,
          true,
        );
      }
    });

    it('refuses an unknown target with 1204', async () => {
      const reporter = await api.user();
      expectFail(
        await api.raw.reportUser(reporter, { user_id: randomUserId('ghost'), request_id: requestId(), reason_code: 1 }),
        1204,
      );
    });

    it('refuses reporting oneself with 1004', async () => {
      const reporter = await api.user();
      expectFail(
        await api.raw.reportUser(reporter, { user_id: reporter.userId, request_id: requestId(), reason_code: 1 }),
        1004,
      );
    });

    it('accepts a target whose user_id is 64 characters and one with non-ASCII characters', async () => {
      const reporter = await api.user();
      const long = await api.user({ user_id: `L${randomBytes(32).toString('hex').slice(0, 63)}` });
      expect(long.userId).toHaveLength(64);
      const id1 = requestId();
      expectReport(
        await api.raw.reportUser(reporter, { user_id: long.userId, request_id: id1, reason_code: 2 }),
        id1,
        true,
      );
      const unicode = await api.user({ user_id: `用户-${randomBytes(4).toString('hex')}` });
      const id2 = requestId();
      expectReport(
        await api.raw.reportUser(reporter, { user_id: unicode.userId, request_id: id2, reason_code: 2 }),
        id2,
        true,
      );
    });

    it('does not let a space-padded own user_id bypass the self-report rule', async () => {
      const reporter = await api.user();
      for (const value of [`${reporter.userId} `, ` ${reporter.userId}`]) {
        const id = requestId();
        const response = await api.raw.reportUser(reporter, { user_id: value, request_id: id, reason_code: 1 });
        const code: number = response.body.code;
        expect({ value, code }).toEqual({ value, code: [1004, 1204].includes(code) ? code : 'one of 1004, 1204' });
        expect(response.body.data).toBeNull();
        expect(await stored(reporter, id)).toHaveLength(0);
      }
    });

    it.each<[string, unknown]>([
      ['missing', undefined],
      ['empty', ''],
      ['65 characters', 'x'.repeat(65)],
      ['a number', 12345],
      ['an array', ['x']],
      ['an object', { id: 'x' }],
      ['null', null],
      ['a NUL character', 'a\u0000b'],
      ['a newline', 'a\nb'],
      ['DEL', 'a\u007fb'],
      ['a C1 control (U+0085)', 'a\u0085b'],
    ])('refuses a target user_id that is %s with 1004 naming user_id', async (_label, value) => {
      const reporter = await api.user();
      const body: Body = { request_id: requestId(), reason_code: 1 };
      if (value !== undefined) body.user_id = value;
      expectFail(await api.raw.reportUser(reporter, body), 1004, 'user_id');
    });

    it('does not trim whitespace around the target user_id onto another user', async () => {
      const reporter = await api.user();
      const target = await api.user();
      for (const value of [` ${target.userId}`, `${target.userId} `]) {
        const id = requestId();
        const response = await api.raw.reportUser(reporter, { user_id: value, request_id: id, reason_code: 1 });
        const code: number = response.body.code;
        expect({ value, code }).toEqual({ value, code: [1004, 1204].includes(code) ? code : 'one of 1004, 1204' });
        expect(response.body.data).toBeNull();
        expect(await stored(reporter, id)).toHaveLength(0);
      }
    });
  });

  describe('POST /app/sdk/reports/group: creation and access checks', () => {
    it('lets a member and the owner report the group', async () => {
      const owner = await api.user();
      const member = await api.user();
      const group = await makeGroup(owner, [member]);
      const id1 = requestId();
      expectReport(
        await api.raw.reportGroup(member, { group_id: group.publicId, request_id: id1, reason_code: 3 }),
        id1,
        true,
      );
      const id2 = requestId();
      const response = await api.raw.reportGroup(owner, {
        group_id: group.publicId,
        request_id: id2,
        reason_code: 6,
        description: 'spam',
      });
      expectReport(response, id2, true);
      expect(response.headers['cache-control']).toBe('no-store');
      const rows = await stored(owner, id2);
      expect(rows).toHaveLength(1);
      expect(rows[0].description).toBe('spam');
      expect(rows[0].status).toBe('pending');
    });

    it('accepts a 32-character group id', async () => {
      const owner = await api.user();
      const publicId = `G.${randomBytes(15).toString('hex')}`;
      expect(publicId).toHaveLength(32);
      await makeGroup(owner, [], publicId);
      const id = requestId();
      expectReport(await api.raw.reportGroup(owner, { group_id: publicId, request_id: id, reason_code: 1 }), id, true);
    });

    it('refuses a non-member and an unknown group with 1209', async () => {
      const owner = await api.user();
      const outsider = await api.user();
      const group = await makeGroup(owner);
      expectFail(
        await api.raw.reportGroup(outsider, { group_id: group.publicId, request_id: requestId(), reason_code: 1 }),
        1209,
      );
      expectFail(
        await api.raw.reportGroup(outsider, { group_id: randomGroupId(), request_id: requestId(), reason_code: 1 }),
        1209,
      );
    });

    it('lets a member who left, or was removed, still report the group', async () => {
      const owner = await api.user();
      const leaver = await api.user();
      const removed = await api.user();
      const group = await makeGroup(owner, [leaver, removed]);
      await api.leaveGroup(leaver, group.publicId);
      await api.removeMembers(owner, group.publicId, [removed]);
      const id1 = requestId();
      expectReport(
        await api.raw.reportGroup(leaver, { group_id: group.publicId, request_id: id1, reason_code: 2 }),
        id1,
        true,
      );
      const id2 = requestId();
      expectReport(
        await api.raw.reportGroup(removed, { group_id: group.publicId, request_id: id2, reason_code: 2 }),
        id2,
        true,
      );
    });

    it('refuses reporting a disabled group with 1218', async () => {
      const owner = await api.user();
      const member = await api.user();
      const group = await makeGroup(owner, [member]);
      await factories.disableGroup(group.publicId);
      const id = requestId();
      expectFail(await api.raw.reportGroup(member, { group_id: group.publicId, request_id: id, reason_code: 1 }), 1218);
      expect(await stored(member, id)).toHaveLength(0);
    });

    it.each<[string, unknown]>([
      ['missing', undefined],
      ['empty', ''],
      ['33 characters', 'g'.repeat(33)],
      ['containing a slash', 'g/1'],
      ['containing a space', 'g 1'],
      ['containing a non-ASCII letter', 'grüppe'],
      ['a number', 123],
      ['an array', ['g-1']],
      ['null', null],
    ])('refuses a group_id that is %s with 1004 naming group_id', async (_label, value) => {
      const reporter = await api.user();
      const body: Body = { request_id: requestId(), reason_code: 1 };
      if (value !== undefined) body.group_id = value;
      expectFail(await api.raw.reportGroup(reporter, body), 1004, 'group_id');
    });
  });

  describe('shared field validation (spec 4.3, 8)', () => {
    const endpoints = ['user', 'group'] as const;

    /** A reporter with a valid target for the endpoint, so only the field under test is wrong. */
    async function context(kind: 'user' | 'group') {
      const reporter = await api.user();
      const target = await api.user();
      const group = await makeGroup(target, [reporter]);
      const base: Body =
        kind === 'user' ? { user_id: target.userId, reason_code: 1 } : { group_id: group.publicId, reason_code: 1 };
      const send = (body: Body) =>
        kind === 'user' ? api.raw.reportUser(reporter, body) : api.raw.reportGroup(reporter, body);
      return { reporter, target, group, base, send };
    }

    describe.each(endpoints)('on /app/sdk/reports/%s', (kind) => {
      it.each<[string, unknown]>([
        ['missing', undefined],
        ['empty', ''],
        ['65 characters', 'r'.repeat(65)],
        ['containing a space', 'a b'],
        ['containing a slash', 'a/b'],
        ['containing a non-ASCII letter', 'réq'],
        ['a number', 123],
        ['null', null],
        ['an array', ['a']],
      ])('refuses a request_id that is %s with 1004 naming request_id', async (_label, value) => {
        const c = await context(kind);
        const body: Body = { ...c.base };
        if (value !== undefined) body.request_id = value;
        expectFail(await c.send(body), 1004, 'request_id');
      });

      it('accepts a 64-character request_id using every allowed character class', async () => {
        const c = await context(kind);
        const id = `aZ09._:-${randomBytes(28).toString('hex')}`;
        expect(id).toHaveLength(64);
        expectReport(await c.send({ ...c.base, request_id: id }), id, true);
      });

      it.each<[string, unknown]>([
        ['missing', undefined],
        ['0', 0],
        ['9', 9],
        ['-1', -1],
        ['1.5', 1.5],
        ['the string "1"', '1'],
        ['true', true],
        ['null', null],
        ['an array', [1]],
      ])('refuses a reason_code that is %s with 1004 naming reason_code', async (_label, value) => {
        const c = await context(kind);
        const body: Body = { ...c.base, request_id: requestId() };
        if (value === undefined) delete body.reason_code;
        else body.reason_code = value;
        expectFail(await c.send(body), 1004, 'reason_code');
      });

      it('accepts a description of 1000 characters, counting an emoji as one character, and stores it unchanged', async () => {
        const c = await context(kind);
        const plain = 'd'.repeat(1000);
        const id1 = requestId();
        expectReport(await c.send({ ...c.base, request_id: id1, description: plain }), id1, true);
        expect((await stored(c.reporter, id1))[0].description).toBe(plain);
        const emoji = '😀'.repeat(1000);
        const id2 = requestId();
        expectReport(await c.send({ ...c.base, request_id: id2, description: emoji }), id2, true);
        expect((await stored(c.reporter, id2))[0].description).toBe(emoji);
      });

      it.each<[string, unknown]>([
        ['1001 characters', 'd'.repeat(1001)],
        ['1001 emoji', '😀'.repeat(1001)],
        ['a number', 5],
        ['a boolean', true],
        ['an array', ['spam']],
        ['an object', { text: 'spam' }],
      ])('refuses a description that is %s with 1004 naming description', async (_label, value) => {
        const c = await context(kind);
        const id = requestId();
        expectFail(await c.send({ ...c.base, request_id: id, description: value }), 1004, 'description');
        expect(await stored(c.reporter, id)).toHaveLength(0);
      });

      it.each<[string, unknown]>([
        ['257 characters', `group_${'g'.repeat(251)}`],
        ['a number', 42],
        ['an array', ['group_x']],
        ['an object', { id: 'group_x' }],
      ])('refuses a conversation_id that is %s with 1004 naming conversation_id', async (_label, value) => {
        const c = await context(kind);
        expectFail(
          await c.send({ ...c.base, request_id: requestId(), conversation_id: value }),
          1004,
          'conversation_id',
        );
      });

      it.each<[string, unknown]>([
        ['a string instead of a list', '1'],
        ['an object', { 0: '1' }],
        ['a list of numbers', [1]],
        ['containing "0"', ['0']],
        ['containing "-1"', ['-1']],
        ['containing "01"', ['01']],
        ['containing "+1"', ['+1']],
        ['containing "1.0"', ['1.0']],
        ['containing "1e3"', ['1e3']],
        ['containing " 1"', [' 1']],
        ['containing an empty string', ['']],
        ['containing null', [null]],
        ['containing a 20-digit id', ['12345678901234567890']],
        ['containing duplicates', ['5', '5']],
        ['of 21 items', Array.from({ length: 21 }, (_v, i) => String(i + 1))],
      ])('refuses message_ids %s with 1004 naming message_ids', async (_label, value) => {
        const c = await context(kind);
        const body: Body = {
          ...c.base,
          request_id: requestId(),
          conversation_id: c.group.conversation,
          message_ids: value,
        };
        expectFail(await c.send(body), 1004, 'message_ids');
      });

      it('refuses message_ids without a conversation_id (absent or null) with 1004', async () => {
        const c = await context(kind);
        const mid = await message(c.target, c.group.conversation);
        expectFail(await c.send({ ...c.base, request_id: requestId(), message_ids: [mid] }), 1004);
        expectFail(
          await c.send({ ...c.base, request_id: requestId(), conversation_id: null, message_ids: [mid] }),
          1004,
        );
      });

      it('accepts an empty message_ids list without a conversation_id, and null conversation_id', async () => {
        const c = await context(kind);
        const id1 = requestId();
        expectReport(await c.send({ ...c.base, request_id: id1, message_ids: [] }), id1, true);
        const id2 = requestId();
        expectReport(await c.send({ ...c.base, request_id: id2, conversation_id: null, description: null }), id2, true);
      });

      it('refuses a body that is not a JSON object, or malformed JSON, with 1004', async () => {
        const c = await context(kind);
        const path = `/app/sdk/reports/${kind}`;
        for (const raw of ['[]', '"report"', '{"request_id": "x",', `{"request_id": "r-1", "reason_code": 1e400}`]) {
          const response = await t.http
            .post(path)
            .set(...bearer(c.reporter.token))
            .set('Content-Type', 'application/json')
            .send(raw);
          expectFail(response, 1004);
        }
      });
    });
  });
});
