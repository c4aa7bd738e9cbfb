// Black-box tests of search within one conversation, the modes of GET /app/sdk/messages,
// recall/delete edge cases, custom payloads, the keyword list and GET /app/sdk/unread against
// sync, written from the spec (2.2, 4.6, 4.7, 7), issue 3 and docs/messaging.md. Everything goes through
// HTTP; friendships and groups are made through their own endpoints.
import { TestApp, bearer, startTestApp } from '../helpers/test-app';
import { ApiClient, SyncItem, friendCid, groupCid } from '../helpers/api-client';
import { expectFail, expectOk } from '../helpers/assertions';

describe('Search, message windows, recall/delete, custom payloads and unread (black box)', () => {
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestApp({ BLOCKED_KEYWORDS: 'forbiddenword,spam offer' });
    api = new ApiClient(t);
  });
  afterAll(() => t.close());

  // =====================================================================================
  describe('GET /app/sdk/unread against sync', () => {
    it('agrees with sync and windows across one-to-one, groups, a muted group, a removed-from group and a hidden conversation', async () => {
      const me = await api.user();
      const f1 = await api.user();
      const f2 = await api.user();
      const owner = await api.user();
      await api.befriend(me, f1);
      await api.befriend(me, f2);
      const g1 = await api.createGroup(owner, [me]);
      const g2 = await api.createGroup(owner, [me]);
      const g3 = await api.createGroup(owner, [me]);
      await api.sendMany(f1, friendCid(me), 3, 'f1');
      await api.sendMany(f2, friendCid(me), 2, 'f2');
      await api.sendMany(owner, groupCid(g1), 4, 'g1');
      await api.sendMany(owner, groupCid(g2), 5, 'g2');
      await api.sendMany(owner, groupCid(g3), 2, 'g3');
      await api.send(me, groupCid(g1), 'my own');
      const expected: Record<string, number> = {
        [friendCid(f1)]: 3,
        [friendCid(f2)]: 2,
        [groupCid(g1)]: 4,
        [groupCid(g2)]: 5,
        [groupCid(g3)]: 2,
      };
      await api.expectUnread(me, expected);
      await api.setting(me, 'mute', groupCid(g2), true);
      await api.expectUnread(me, expected, [groupCid(g2)]);
      await api.removeMembers(owner, g3, [me]);
      await api.sendMany(owner, groupCid(g3), 3, 'g3 later');
      await api.expectUnread(me, expected, [groupCid(g2)]);
      // reads, recalls and deletes move every view together
      expectOk(await api.raw.read(me, friendCid(f1), '2'));
      expected[friendCid(f1)] = 1;
      const g2w = await api.latest(me, groupCid(g2));
      expectOk(await api.raw.delete(owner, groupCid(g2), g2w.messages[4].mid));
      expected[groupCid(g2)] = 4;
      await api.expectUnread(me, expected, [groupCid(g2)]);
      await api.setting(me, 'mute', groupCid(g2), false);
      await api.expectUnread(me, expected);
    });

    it('a hidden conversation with unread messages: /unread and the sync aggregate still agree', async () => {
      const me = await api.user();
      const f = await api.user();
      await api.befriend(me, f);
      await api.sendMany(f, friendCid(me), 2, 'h');
      await api.setting(me, 'hide', friendCid(f), true);
      const s = expectOk<{ unread: { total: number; total_unmuted: number } }>(await api.raw.sync(me));
      const badge = expectOk<{ total: number; total_unmuted: number; conversations: Array<{ unread: number }> }>(
        await api.raw.unread(me),
      );
      expect({ total: badge.total, total_unmuted: badge.total_unmuted }).toEqual(s.unread);
      expect(badge.conversations.reduce((n, c) => n + c.unread, 0)).toBe(badge.total);
    });

    it('refuses page/offset/limit on /unread with 1004', async () => {
      const me = await api.user();
      for (const extra of ['limit=5', 'offset=1', 'page=2'])
        expectFail(await t.http.get(`/app/sdk/unread?${extra}`).set(...bearer(me.token)), 1004);
    });

    it('refuses malformed sync/settings/read bodies with 1004 naming the field (no implicit conversion), changing nothing', async () => {
      const me = await api.user();
      const f = await api.user();
      await api.befriend(me, f);
      expectFail(await api.raw.sync(me, { cursor: 123 }), 1004, 'cursor');
      for (const [path, field] of [
        ['pin', 'pinned'],
        ['mute', 'muted'],
        ['hide', 'hidden'],
      ]) {
        for (const value of ['true', 1, 0, 'false', null]) {
          expectFail(
            await t.http
              .post(`/app/sdk/conversations/${path}`)
              .set(...bearer(me.token))
              .send({ conversation_id: friendCid(f), [field]: value }),
            1004,
            field,
          );
        }
      }
      expectFail(await api.raw.read(me, friendCid(f), 0), 1004, 'read_seq');
      expectFail(await api.raw.read(me, friendCid(f), true), 1004, 'read_seq');
      const item = (await api.syncAll(me)).items.find((i) => i.conversation_id === friendCid(f)) as SyncItem & {
        pinned: boolean;
        hidden: boolean;
      };
      expect(item).toMatchObject({ muted: false, pinned: false, hidden: false });
    });
  });
});
