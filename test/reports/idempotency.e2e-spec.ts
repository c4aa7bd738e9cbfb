// Black-box tests of the group and user report endpoints (spec 2.1, 2.6, 3, 4.3, 4.4, 7, 8),
// written from the specification. Friendships, groups and the messages cited as evidence are made
// through their endpoints (disabling a group, which has none, through the repository); SQL only
// reads the stored reports.
import { randomBytes } from 'node:crypto';
import { TestApp, startTestApp } from '../helpers/test-app';
import { ApiClient, Body, friendCid } from '../helpers/api-client';
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
