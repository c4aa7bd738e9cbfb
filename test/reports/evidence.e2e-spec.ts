// Black-box tests of the group and user report endpoints (spec 2.1, 2.6, 3, 4.3, 4.4, 7, 8),
// written from the specification. Friendships, groups and the messages cited as evidence are made
// through their endpoints (disabling a group, which has none, through the repository); SQL only
// reads the stored reports.
import { randomBytes } from 'node:crypto';
import { TestApp, randomGroupId, randomUserId, startTestApp } from '../helpers/test-app';
import { ApiClient, friendCid, groupCid } from '../helpers/api-client';
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
});
