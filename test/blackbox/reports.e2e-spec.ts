// Black-box tests of the group and user report endpoints (spec 2.1, 2.6, 3, 4.3, 4.4, 7, 8),
// written from the specification. Friendships, groups and the messages cited as evidence are made
// through their endpoints (disabling a group, which has none, through the repository); SQL only
// reads the stored reports.
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { TestApp, bearer, randomGroupId, randomUserId, startTestApp } from '../helpers/test-app';
import { ApiClient, Body, IssuedUser, friendCid, groupCid } from '../helpers/api-client';
import { expectFail } from '../helpers/assertions';
import { Factories } from '../helpers/factories';

interface StoredReport {
  reporter_id: string | number;
  request_id: string;
  reason_code: number | string;
  description: string;
  status: string;
  created_at: number | string;
  message_ids: unknown;
}

const requestId = (): string => `req-${randomBytes(8).toString('hex')}`;

/** A successful report reply. */
function expectReport(response: Response, id: string, created: boolean): void {
  expect({ status: response.status, body: response.body }).toEqual({
    status: 200,
    body: { code: 0, msg: 'ok', data: { request_id: id, status: 'pending', created_at: expect.any(Number), created } },
  });
  expect(Number.isInteger(response.body.data.created_at)).toBe(true);
}

describe('Reports (spec 4.3, 4.4)', () => {
  let t: TestApp;
  let api: ApiClient;
  let factories: Factories;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
    factories = new Factories(t, api);
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  const stored = async (reporter: IssuedUser, id: string): Promise<StoredReport[]> =>
    db.query('SELECT * FROM reports WHERE reporter_id = ? AND request_id = ?', [reporter.id, id]);

  /** A fresh group: the first user owns it, the others are members from the start. */
  async function makeGroup(owner: IssuedUser, members: IssuedUser[] = [], publicId = randomGroupId()) {
    await factories.group(owner, members, publicId);
    return { publicId, conversation: groupCid(publicId) };
  }

  /** Sends a text message; returns its mid. */
  const message = async (sender: IssuedUser, conversationId: string, text = 'hello'): Promise<string> =>
    (await api.send(sender, conversationId, text)).message.mid;

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

  describe('evidence checks (spec 4.3 rules, 2.1 conversation ids)', () => {
    it('accepts messages of the one-to-one conversation with the target, from both sides, and stores them', async () => {
      const { a, b } = await factories.pair();
      const m1 = await message(b, friendCid(a), 'rude');
      const m2 = await message(a, friendCid(b), 'reply');
      const id = requestId();
      expectReport(
        await api.raw.reportUser(a, {
          user_id: b.userId,
          request_id: id,
          reason_code: 7,
          conversation_id: friendCid(b),
          message_ids: [m1, m2],
        }),
        id,
        true,
      );
      const rows = await stored(a, id);
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows[0].message_ids)).toContain(m1);
      expect(JSON.stringify(rows[0].message_ids)).toContain(m2);
    });

    it('resolves a one-to-one conversation id built from a non-ASCII external user id', async () => {
      const a = await api.user();
      const b = await api.user({ user_id: `Ünï-用户-${randomBytes(3).toString('hex')}` });
      await api.befriend(a, b);
      const mid = await message(b, friendCid(a));
      const id = requestId();
      expectReport(
        await api.raw.reportUser(a, {
          user_id: b.userId,
          request_id: id,
          reason_code: 7,
          conversation_id: friendCid(b),
          message_ids: [mid],
        }),
        id,
        true,
      );
    });

    it('accepts an accessible conversation_id without messages', async () => {
      const { a, b } = await factories.pair();
      const id = requestId();
      expectReport(
        await api.raw.reportUser(a, {
          user_id: b.userId,
          request_id: id,
          reason_code: 1,
          conversation_id: friendCid(b),
        }),
        id,
        true,
      );
    });

    it('accepts group messages as evidence in a group report', async () => {
      const owner = await api.user();
      const member = await api.user();
      const group = await makeGroup(owner, [member]);
      const mid = await message(owner, group.conversation, 'bad');
      const id = requestId();
      expectReport(
        await api.raw.reportGroup(member, {
          group_id: group.publicId,
          request_id: id,
          reason_code: 7,
          conversation_id: group.conversation,
          message_ids: [mid],
        }),
        id,
        true,
      );
    });

    it('accepts messages from a shared group conversation as evidence in a user report', async () => {
      const owner = await api.user();
      const member = await api.user();
      const group = await makeGroup(owner, [member]);
      const mid = await message(owner, group.conversation, 'bad');
      const id = requestId();
      expectReport(
        await api.raw.reportUser(member, {
          user_id: owner.userId,
          request_id: id,
          reason_code: 7,
          conversation_id: group.conversation,
          message_ids: [mid],
        }),
        id,
        true,
      );
    });

    it('refuses a one-to-one conversation that does not exist with 1201', async () => {
      const reporter = await api.user();
      const target = await api.user();
      expectFail(
        await api.raw.reportUser(reporter, {
          user_id: target.userId,
          request_id: requestId(),
          reason_code: 1,
          conversation_id: friendCid(target),
        }),
        1201,
      );
      expectFail(
        await api.raw.reportUser(reporter, {
          user_id: target.userId,
          request_id: requestId(),
          reason_code: 1,
          conversation_id: friendCid({ userId: randomUserId('nobody') }),
        }),
        1201,
      );
    });

    it("refuses someone else's one-to-one conversation with 1201", async () => {
      const { a, b } = await factories.pair();
      const outsider = await api.user();
      const mid = await message(a, friendCid(b));
      // From the outsider's side, "friend_<b>" names the outsider's own (absent) conversation with b.
      expectFail(
        await api.raw.reportUser(outsider, {
          user_id: b.userId,
          request_id: requestId(),
          reason_code: 1,
          conversation_id: friendCid(b),
          message_ids: [mid],
        }),
        1201,
      );
      expectFail(
        await api.raw.reportUser(outsider, {
          user_id: a.userId,
          request_id: requestId(),
          reason_code: 1,
          conversation_id: friendCid(a),
          message_ids: [mid],
        }),
        1201,
      );
    });

    it('refuses a conversation with oneself', async () => {
      const { a, b } = await factories.pair();
      const response = await api.raw.reportUser(a, {
        user_id: b.userId,
        request_id: requestId(),
        reason_code: 1,
        conversation_id: friendCid(a),
      });
      expect([1004, 1201]).toContain(response.body.code);
      expect(response.body.data).toBeNull();
    });

    it('refuses a group conversation the reporter never belonged to, or of an unknown group, with 1201', async () => {
      const owner = await api.user();
      const outsider = await api.user();
      const target = await api.user();
      const group = await makeGroup(owner);
      const mid = await message(owner, group.conversation);
      expectFail(
        await api.raw.reportUser(outsider, {
          user_id: target.userId,
          request_id: requestId(),
          reason_code: 1,
          conversation_id: group.conversation,
          message_ids: [mid],
        }),
        1201,
      );
      expectFail(
        await api.raw.reportUser(outsider, {
          user_id: target.userId,
          request_id: requestId(),
          reason_code: 1,
          conversation_id: groupCid(randomGroupId()),
        }),
        1201,
      );
    });

    it.each<[string, string]>([
      ['"friend_" with nothing after it', 'friend_'],
      ['a padded Base64 id', `friend_${Buffer.from('ab').toString('base64')}`],
      ['standard Base64 characters', 'friend_a+b/'],
      ['a character outside Base64URL', 'friend_abc!'],
      ['"group_" with nothing after it', 'group_'],
      ['a group id with a slash', 'group_a/b'],
      ['a 33-character group id', `group_${'g'.repeat(33)}`],
      ['an unknown prefix', `channel_${randomBytes(4).toString('hex')}`],
      ['no prefix at all', 'abc'],
      ['an id decoding to invalid UTF-8', `friend_${Buffer.from([0xff, 0xfe]).toString('base64url')}`],
      ['an id decoding to a 65-character user id', `friend_${Buffer.from('x'.repeat(65)).toString('base64url')}`],
      [
        'an id decoding to a user id with a control character',
        `friend_${Buffer.from('a\u0000b').toString('base64url')}`,
      ],
    ])('refuses a malformed conversation_id (%s) with 1004', async (_label, conversationId) => {
      const reporter = await api.user();
      const target = await api.user();
      expectFail(
        await api.raw.reportUser(reporter, {
          user_id: target.userId,
          request_id: requestId(),
          reason_code: 1,
          conversation_id: conversationId,
        }),
        1004,
        'conversation_id',
      );
    });

    it('does not resolve a non-canonical Base64URL encoding of the peer to the conversation', async () => {
      const a = await api.user({ user_id: `a${randomBytes(4).toString('hex')}x` }); // 10 bytes: the encoding ends with 4 spare bits
      const b = await api.user({ user_id: `b${randomBytes(4).toString('hex')}x` });
      await api.befriend(a, b);
      const canonical = Buffer.from(b.userId).toString('base64url');
      const last = canonical[canonical.length - 1];
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const tweaked = `${canonical.slice(0, -1)}${alphabet[alphabet.indexOf(last) + 1]}`;
      expect(Buffer.from(tweaked, 'base64url').toString()).toBe(b.userId); // same bytes, different text
      const response = await api.raw.reportUser(a, {
        user_id: b.userId,
        request_id: requestId(),
        reason_code: 1,
        conversation_id: `friend_${tweaked}`,
      });
      expect([1004, 1201]).toContain(response.body.code);
      expect(response.body.data).toBeNull();
    });

    it('refuses a message of another conversation, or an unknown message id, with 1207', async () => {
      const { a, b } = await factories.pair();
      const other = await factories.pair();
      const foreign = await message(other.a, friendCid(other.b));
      const conversation = friendCid(b);
      for (const mid of [foreign, '999999999999', '9223372036854775807']) {
        const id = requestId();
        const response = await api.raw.reportUser(a, {
          user_id: b.userId,
          request_id: id,
          reason_code: 7,
          conversation_id: conversation,
          message_ids: [mid],
        });
        expect({ mid, code: response.body.code, data: response.body.data }).toEqual({ mid, code: 1207, data: null });
        expect(await stored(a, id)).toHaveLength(0);
      }
    });

    it('treats any 19-digit message id, even above the signed 64-bit range, as well-formed (1207, not 1004)', async () => {
      const { a, b } = await factories.pair();
      const response = await api.raw.reportUser(a, {
        user_id: b.userId,
        request_id: requestId(),
        reason_code: 7,
        conversation_id: friendCid(b),
        message_ids: ['9999999999999999999'],
      });
      expectFail(response, 1207);
    });

    it("refuses a message of the reporter's own other conversation with 1207", async () => {
      const { a, b } = await factories.pair();
      const third = await api.user();
      await api.befriend(a, third);
      const mine = await message(a, friendCid(third));
      expectFail(
        await api.raw.reportUser(a, {
          user_id: b.userId,
          request_id: requestId(),
          reason_code: 7,
          conversation_id: friendCid(b),
          message_ids: [mine],
        }),
        1207,
      );
    });

    it('does not resolve a peer id with a trailing space to the peer (friend_ of "<peer> ")', async () => {
      const { a, b } = await factories.pair();
      const mid = await message(b, friendCid(a));
      const id = requestId();
      const response = await api.raw.reportUser(a, {
        user_id: b.userId,
        request_id: id,
        reason_code: 7,
        conversation_id: friendCid({ userId: `${b.userId} ` }),
        message_ids: [mid],
      });
      expect([1004, 1201]).toContain(response.body.code);
      expect(response.body.data).toBeNull();
      expect(await stored(a, id)).toHaveLength(0);
    });

    it('matches group ids exactly: a group id in another letter case is another (unknown) group', async () => {
      const owner = await api.user();
      const member = await api.user();
      const group = await makeGroup(owner, [member], `g-${randomBytes(6).toString('hex')}`);
      const upper = group.publicId.toUpperCase();
      expectFail(await api.raw.reportGroup(member, { group_id: upper, request_id: requestId(), reason_code: 1 }), 1209);
      expectFail(
        await api.raw.reportUser(member, {
          user_id: owner.userId,
          request_id: requestId(),
          reason_code: 1,
          conversation_id: groupCid(upper),
        }),
        1201,
      );
    });

    it('refuses recalled and deleted messages with 1207', async () => {
      const { a, b } = await factories.pair();
      const recalled = await message(b, friendCid(a));
      const deleted = await message(b, friendCid(a));
      await api.recall(b, friendCid(a), recalled);
      await api.deleteMessage(b, friendCid(a), deleted);
      for (const mid of [recalled, deleted]) {
        expectFail(
          await api.raw.reportUser(a, {
            user_id: b.userId,
            request_id: requestId(),
            reason_code: 7,
            conversation_id: friendCid(b),
            message_ids: [mid],
          }),
          1207,
        );
      }
    });

    it('refuses messages sent before the reporter joined the group and accepts later ones', async () => {
      const owner = await api.user();
      const late = await api.user();
      const group = await makeGroup(owner);
      const early = await message(owner, group.conversation, 'before');
      await api.addMembers(owner, group.publicId, [late]);
      const later = await message(owner, group.conversation, 'after');
      const base = { group_id: group.publicId, reason_code: 7, conversation_id: group.conversation };
      expectFail(await api.raw.reportGroup(late, { ...base, request_id: requestId(), message_ids: [early] }), 1207);
      expectFail(
        await api.raw.reportGroup(late, { ...base, request_id: requestId(), message_ids: [later, early] }),
        1207,
      );
      const id = requestId();
      expectReport(await api.raw.reportGroup(late, { ...base, request_id: id, message_ids: [later] }), id, true);
    });

    it('after leaving, accepts messages sent while a member and refuses those sent after leaving', async () => {
      const owner = await api.user();
      const leaver = await api.user();
      const group = await makeGroup(owner, [leaver]);
      const during = await message(owner, group.conversation, 'during');
      await api.leaveGroup(leaver, group.publicId);
      const after = await message(owner, group.conversation, 'after');
      const base = { group_id: group.publicId, reason_code: 7, conversation_id: group.conversation };
      expectFail(await api.raw.reportGroup(leaver, { ...base, request_id: requestId(), message_ids: [after] }), 1207);
      const id = requestId();
      expectReport(await api.raw.reportGroup(leaver, { ...base, request_id: id, message_ids: [during] }), id, true);
      // The same holds in a user report citing that group conversation.
      expectFail(
        await api.raw.reportUser(leaver, {
          user_id: owner.userId,
          reason_code: 7,
          conversation_id: group.conversation,
          request_id: requestId(),
          message_ids: [after],
        }),
        1207,
      );
    });

    it('accepts 20 messages and refuses 21 with 1004', async () => {
      const { a, b } = await factories.pair();
      const mids: string[] = [];
      for (let i = 0; i < 21; i += 1) mids.push(await message(b, friendCid(a), `m${i}`));
      const base = { user_id: b.userId, reason_code: 7, conversation_id: friendCid(b) };
      expectFail(
        await api.raw.reportUser(a, { ...base, request_id: requestId(), message_ids: mids }),
        1004,
        'message_ids',
      );
      const id = requestId();
      expectReport(await api.raw.reportUser(a, { ...base, request_id: id, message_ids: mids.slice(0, 20) }), id, true);
    });
  });

  describe('idempotency per (reporter, request_id) (spec 2.1, 4.3)', () => {
    it('returns the stored report with created:false and the original created_at on a retry', async () => {
      const { a, b } = await factories.pair();
      const mid = await message(b, friendCid(a));
      const body = {
        user_id: b.userId,
        request_id: requestId(),
        reason_code: 7,
        description: 'abuse',
        conversation_id: friendCid(b),
        message_ids: [mid],
      };
      const first = await api.raw.reportUser(a, body);
      expectReport(first, body.request_id, true);
      t.clock.advance(60_000);
      const second = await api.raw.reportUser(a, body);
      expectReport(second, body.request_id, false);
      expect(second.body.data.created_at).toBe(first.body.data.created_at);
      expect(await stored(a, body.request_id)).toHaveLength(1);
    });

    it('treats the retry on the group endpoint the same way', async () => {
      const owner = await api.user();
      const member = await api.user();
      const group = await makeGroup(owner, [member]);
      const body = { group_id: group.publicId, request_id: requestId(), reason_code: 3 };
      const first = await api.raw.reportGroup(member, body);
      expectReport(first, body.request_id, true);
      t.clock.advance(30_000);
      const second = await api.raw.reportGroup(member, body);
      expectReport(second, body.request_id, false);
      expect(second.body.data.created_at).toBe(first.body.data.created_at);
    });

    it('treats absent, null and empty description as the same content', async () => {
      const reporter = await api.user();
      const target = await api.user();
      const base = { user_id: target.userId, request_id: requestId(), reason_code: 2 };
      const first = await api.raw.reportUser(reporter, base);
      expectReport(first, base.request_id, true);
      t.clock.advance(1_000);
      for (const description of [null, '']) {
        const retry = await api.raw.reportUser(reporter, { ...base, description });
        expectReport(retry, base.request_id, false);
        expect(retry.body.data.created_at).toBe(first.body.data.created_at);
      }
      expect((await stored(reporter, base.request_id))[0].description).toBe('');
    });

    it('treats absent evidence, null conversation_id and empty message_ids as the same content', async () => {
      const reporter = await api.user();
      const target = await api.user();
      const base = { user_id: target.userId, request_id: requestId(), reason_code: 2 };
      expectReport(await api.raw.reportUser(reporter, base), base.request_id, true);
      expectReport(await api.raw.reportUser(reporter, { ...base, conversation_id: null }), base.request_id, false);
      expectReport(await api.raw.reportUser(reporter, { ...base, message_ids: [] }), base.request_id, false);
      expectReport(
        await api.raw.reportUser(reporter, { ...base, conversation_id: null, message_ids: [] }),
        base.request_id,
        false,
      );
    });

    it('refuses the same request_id with different content with 1004 and keeps the stored report', async () => {
      const { a, b } = await factories.pair();
      const other = await api.user();
      await api.befriend(a, other);
      const m1 = await message(b, friendCid(a));
      const m2 = await message(b, friendCid(a));
      const body = {
        user_id: b.userId,
        request_id: requestId(),
        reason_code: 7,
        description: 'first',
        conversation_id: friendCid(b),
        message_ids: [m1],
      };
      expectReport(await api.raw.reportUser(a, body), body.request_id, true);
      const variants: Body[] = [
        { ...body, user_id: other.userId },
        { ...body, reason_code: 6 },
        { ...body, description: 'second' },
        { ...body, description: '' },
        { ...body, conversation_id: friendCid(other), message_ids: [] },
        { ...body, conversation_id: null, message_ids: [] },
        { ...body, message_ids: [m2] },
        { ...body, message_ids: [m1, m2] },
        { ...body, message_ids: [] },
      ];
      for (const variant of variants) expectFail(await api.raw.reportUser(a, variant), 1004);
      const rows = await stored(a, body.request_id);
      expect(rows).toHaveLength(1);
      expect(rows[0].description).toBe('first');
      expect(Number(rows[0].reason_code)).toBe(7);
      expectReport(await api.raw.reportUser(a, body), body.request_id, false);
    });

    it('treats descriptions differing only by trailing spaces as different content', async () => {
      const reporter = await api.user();
      const target = await api.user();
      const base = { user_id: target.userId, reason_code: 2 };
      const id1 = requestId();
      expectReport(await api.raw.reportUser(reporter, { ...base, request_id: id1, description: 'abc' }), id1, true);
      expectFail(await api.raw.reportUser(reporter, { ...base, request_id: id1, description: 'abc ' }), 1004);
      const id2 = requestId();
      expectReport(await api.raw.reportUser(reporter, { ...base, request_id: id2, description: 'abc  ' }), id2, true);
      expect((await stored(reporter, id2))[0].description).toBe('abc  ');
      expectFail(await api.raw.reportUser(reporter, { ...base, request_id: id2, description: 'abc' }), 1004);
      expectReport(await api.raw.reportUser(reporter, { ...base, request_id: id2, description: 'abc  ' }), id2, false);
    });

    it('keeps exactly one report when 10 submissions with different content race on one request_id', async () => {
      const reporter = await api.user();
      const target = await api.user();
      const id = requestId();
      const replies = await Promise.all(
        Array.from({ length: 10 }, (_v, i) =>
          api.raw.reportUser(reporter, {
            user_id: target.userId,
            request_id: id,
            reason_code: 1,
            description: `variant ${i}`,
          }),
        ),
      );
      const winners = replies.filter((r) => r.body.code === 0);
      expect(winners).toHaveLength(1);
      expect(winners[0].body.data.created).toBe(true);
      expect(replies.filter((r) => r.body.code === 1004)).toHaveLength(9);
      const rows = await stored(reporter, id);
      expect(rows).toHaveLength(1);
      const winnerIndex = replies.indexOf(winners[0]);
      expect(rows[0].description).toBe(`variant ${winnerIndex}`);
    });

    it('shares one key across the user and group endpoints', async () => {
      const owner = await api.user();
      const member = await api.user();
      const group = await makeGroup(owner, [member]);
      const id1 = requestId();
      expectReport(
        await api.raw.reportUser(member, { user_id: owner.userId, request_id: id1, reason_code: 1 }),
        id1,
        true,
      );
      expectFail(
        await api.raw.reportGroup(member, { group_id: group.publicId, request_id: id1, reason_code: 1 }),
        1004,
      );
      const id2 = requestId();
      expectReport(
        await api.raw.reportGroup(member, { group_id: group.publicId, request_id: id2, reason_code: 1 }),
        id2,
        true,
      );
      expectFail(await api.raw.reportUser(member, { user_id: owner.userId, request_id: id2, reason_code: 1 }), 1004);
      expect(await stored(member, id1)).toHaveLength(1);
      expect(await stored(member, id2)).toHaveLength(1);
    });

    it('keys per reporter: another reporter may use the same request_id', async () => {
      const a = await api.user();
      const b = await api.user();
      const target = await api.user();
      const id = requestId();
      expectReport(await api.raw.reportUser(a, { user_id: target.userId, request_id: id, reason_code: 1 }), id, true);
      expectReport(await api.raw.reportUser(b, { user_id: target.userId, request_id: id, reason_code: 4 }), id, true);
    });

    it('treats request_ids differing only in letter case as different keys', async () => {
      const reporter = await api.user();
      const target = await api.user();
      const lower = `case-${randomBytes(6).toString('hex')}`;
      const upper = lower.toUpperCase();
      expectReport(
        await api.raw.reportUser(reporter, { user_id: target.userId, request_id: lower, reason_code: 1 }),
        lower,
        true,
      );
      expectReport(
        await api.raw.reportUser(reporter, { user_id: target.userId, request_id: upper, reason_code: 2 }),
        upper,
        true,
      );
    });

    it('does not consume the request_id when the submission is refused', async () => {
      const { a, b } = await factories.pair();
      const recalled = await message(b, friendCid(a));
      const ok = await message(b, friendCid(a));
      await api.recall(b, friendCid(a), recalled);
      const body = { user_id: b.userId, request_id: requestId(), reason_code: 7, conversation_id: friendCid(b) };
      expectFail(await api.raw.reportUser(a, { ...body, message_ids: [recalled, ok] }), 1207);
      expectFail(await api.raw.reportUser(a, { ...body, reason_code: 99 }), 1004, 'reason_code');
      expectReport(await api.raw.reportUser(a, { ...body, message_ids: [ok] }), body.request_id, true);
    });

    it.each(['user', 'group'] as const)(
      'creates exactly one report from 10 concurrent identical submissions (%s)',
      async (kind) => {
        const owner = await api.user();
        const member = await api.user();
        const group = await makeGroup(owner, [member]);
        const id = requestId();
        const body =
          kind === 'user'
            ? { user_id: owner.userId, request_id: id, reason_code: 5 }
            : { group_id: group.publicId, request_id: id, reason_code: 5 };
        const replies = await Promise.all(
          Array.from({ length: 10 }, () =>
            kind === 'user' ? api.raw.reportUser(member, body) : api.raw.reportGroup(member, body),
          ),
        );
        expect(replies.map((r) => r.body.code)).toEqual(Array(10).fill(0));
        expect(replies.filter((r) => r.body.data.created === true)).toHaveLength(1);
        expect(new Set(replies.map((r) => r.body.data.created_at)).size).toBe(1);
        expect(await stored(member, id)).toHaveLength(1);
      },
    );

    it('creates exactly one report when the same request_id races on both endpoints', async () => {
      const owner = await api.user();
      const member = await api.user();
      const group = await makeGroup(owner, [member]);
      const id = requestId();
      const replies = await Promise.all(
        Array.from({ length: 10 }, (_v, i) =>
          i % 2 === 0
            ? api.raw.reportUser(member, { user_id: owner.userId, request_id: id, reason_code: 1 })
            : api.raw.reportGroup(member, { group_id: group.publicId, request_id: id, reason_code: 1 }),
        ),
      );
      const codes = replies.map((r) => r.body.code);
      expect(codes.every((c) => c === 0 || c === 1004)).toBe(true);
      expect(replies.filter((r) => r.body.code === 0 && r.body.data.created === true)).toHaveLength(1);
      expect(await stored(member, id)).toHaveLength(1);
    });
  });
});
