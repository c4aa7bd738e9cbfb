// Black-box tests of the messaging core (send, recall, delete, read, message windows, search,
// unread and the outbox), written from the service specification (2.1, 2.2, 4, 4.6, 4.7, 6, 7, 8)
// and the documented API contract. Everything under test and all set-up goes through HTTP (the
// one exception: disabling a group, which has no endpoint); SQL only reads the outbox.
import { TestApp, randomGroupId, startTestApp } from '../helpers/test-app';
import { ApiClient, IssuedUser, MessageWindow, Msg, SyncItem, cmid, groupCid, trioOf } from '../helpers/api-client';
import { expectDelivered, expectFail, expectOk, seqs } from '../helpers/assertions';
import { Factories } from '../helpers/factories';

describe('Messaging core (black box)', () => {
  let t: TestApp;
  let api: ApiClient;
  let factories: Factories;

  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
    factories = new Factories(t, api);
  });
  afterAll(() => t.close());

  // =====================================================================================
  describe('group flow (owner, admin, members; unread after every step)', () => {
    it('send, read, recall and delete with owner/admin rights, unread and outbox', async () => {
      const owner = await api.user();
      const admin = await api.user();
      const m1 = await api.user();
      const m2 = await api.user();
      const outsider = await api.user();
      const pub = randomGroupId();
      await factories.group(owner, [admin, m1, m2], pub);
      await api.setAdmin(owner, pub, admin, true);
      const cid = groupCid(pub);
      const everyone = [owner, admin, m1, m2];
      const check = async (expected: [IssuedUser, number][]) => {
        for (const [u, n] of expected) await api.expectUnread(u, { [cid]: n });
        await api.expectUnread(outsider, {});
      };
      await check([
        [owner, 0],
        [admin, 0],
        [m1, 0],
        [m2, 0],
      ]);

      // 1. m1 sends
      const s1 = await api.send(m1, cid, 'from m1');
      expect(s1.message).toMatchObject({
        conversation_id: cid,
        conversation_seq: '1',
        sender_id: m1.userId,
        status: 'normal',
      });
      await expectDelivered(t, s1.event_id, everyone, [outsider]);
      await check([
        [owner, 1],
        [admin, 1],
        [m1, 0],
        [m2, 1],
      ]);

      // 2. m2 sends
      const s2 = await api.send(m2, cid, 'from m2');
      expect(s2.message.conversation_seq).toBe('2');
      await check([
        [owner, 2],
        [admin, 2],
        [m1, 1],
        [m2, 1],
      ]);

      // 3. owner sends
      const s3 = await api.send(owner, cid, 'from owner');
      expect(s3.message.conversation_seq).toBe('3');
      await check([
        [owner, 2],
        [admin, 3],
        [m1, 2],
        [m2, 2],
      ]);

      // 4. m2 reads to 2
      const r4 = await api.read(m2, cid, '2');
      expect(r4).toMatchObject({ conversation_id: cid, read_seq: '2', unread: 1 });
      await check([
        [owner, 2],
        [admin, 3],
        [m1, 2],
        [m2, 1],
      ]);

      // 5. a plain member cannot recall or delete another member's message
      expectFail(await api.raw.recall(m2, cid, s1.message.mid), 1208);
      expectFail(await api.raw.delete(m2, cid, s1.message.mid), 1208);
      expectFail(await api.raw.recall(m1, cid, s3.message.mid), 1208);
      await check([
        [owner, 2],
        [admin, 3],
        [m1, 2],
        [m2, 1],
      ]);

      // 6. the admin recalls m1's message (seq 1)
      const rc = await api.recall(admin, cid, s1.message.mid);
      expect(rc.message).toMatchObject({
        mid: s1.message.mid,
        conversation_seq: '1',
        status: 'recalled',
        content: null,
        conversation_id: cid,
      });
      await expectDelivered(t, rc.event_id, everyone, [outsider]);
      await check([
        [owner, 1],
        [admin, 2],
        [m1, 2],
        [m2, 1],
      ]);

      // 7. the owner deletes m2's message (seq 2)
      const del = await api.deleteMessage(owner, cid, s2.message.mid);
      expect(del.message).toMatchObject({
        mid: s2.message.mid,
        conversation_seq: '2',
        status: 'deleted',
        content: null,
      });
      await expectDelivered(t, del.event_id, everyone, [outsider]);
      await check([
        [owner, 0],
        [admin, 1],
        [m1, 1],
        [m2, 1],
      ]);

      // 8. the admin deletes the owner's message (seq 3)
      await api.deleteMessage(admin, cid, s3.message.mid);
      await check([
        [owner, 0],
        [admin, 0],
        [m1, 0],
        [m2, 0],
      ]);

      // 9. m1 sends two more; the admin reads all
      const s9a = await api.send(m1, cid, 'm1 again');
      const s9b = await api.send(m1, cid, 'm1 once more');
      expect([s9a.message.conversation_seq, s9b.message.conversation_seq]).toEqual(['4', '5']);
      await check([
        [owner, 2],
        [admin, 2],
        [m1, 0],
        [m2, 2],
      ]);
      const r9 = await api.read(admin, cid, '5');
      expect(r9).toMatchObject({ read_seq: '5', unread: 0 });
      await check([
        [owner, 2],
        [admin, 0],
        [m1, 0],
        [m2, 2],
      ]);

      // 10. the sender recalls after the window: refused; the owner still may
      t.clock.advance(121_000);
      expectFail(await api.raw.recall(m1, cid, s9a.message.mid), 1208);
      await check([
        [owner, 2],
        [admin, 0],
        [m1, 0],
        [m2, 2],
      ]);
      const rcOwner = await api.recall(owner, cid, s9a.message.mid);
      expect(rcOwner.message).toMatchObject({ status: 'recalled', content: null });
      await check([
        [owner, 1],
        [admin, 0],
        [m1, 0],
        [m2, 1],
      ]);

      // 11. the sender deletes his own message any time
      await api.deleteMessage(m1, cid, s9b.message.mid);
      await check([
        [owner, 0],
        [admin, 0],
        [m1, 0],
        [m2, 0],
      ]);

      // 12. window of everybody: 5 messages, all tombstones, continuous
      const w = await api.latest(m2, cid);
      expect(seqs(w.messages)).toEqual([1, 2, 3, 4, 5]);
      expect(w.messages.map((m) => m.status)).toEqual(['recalled', 'deleted', 'deleted', 'recalled', 'deleted']);
      expect(w.messages.every((m) => m.content === null)).toBe(true);
      expect(w.unread).toBe(0);

      // 13. an outsider can neither read, send, recall nor mark read
      expectFail(await api.raw.messages(outsider, { conversation_id: cid, before_seq: '5' }), 1201);
      expectFail(
        await api.raw.send(outsider, {
          conversation_id: cid,
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'x' },
        }),
        1201,
      );
      expectFail(await api.raw.read(outsider, cid, '1'), 1201);
      expectFail(await api.raw.recall(outsider, cid, s9a.message.mid), 1201);
      expectFail(await api.raw.delete(outsider, cid, s9a.message.mid), 1201);
    });

    it('a muted member cannot send (1203) until muted_until has passed', async () => {
      const owner = await api.user();
      const member = await api.user();
      const pub = randomGroupId();
      await factories.group(owner, [member], pub);
      await api.muteMember(owner, pub, member, 3600);
      expectFail(
        await api.raw.send(member, {
          conversation_id: groupCid(pub),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'muted' },
        }),
        1203,
      );
      await api.expectUnread(owner, {});
      await api.muteMember(owner, pub, member, 0);
      const s = await api.send(member, groupCid(pub), 'free again');
      expect(s.message.conversation_seq).toBe('1');
      await api.expectUnread(owner, { [groupCid(pub)]: 1 });
    });

    it('a removed member cannot send (1203), sees only messages up to the leave point and is not an event recipient', async () => {
      const owner = await api.user();
      const stay = await api.user();
      const gone = await api.user();
      const pub = randomGroupId();
      const cid = groupCid(pub);
      await factories.group(owner, [stay, gone], pub);
      const before = await api.sendMany(owner, cid, 3, 'before');
      await api.expectUnread(gone, { [cid]: 3 });
      await api.read(gone, cid, '1');
      await api.expectUnread(gone, { [cid]: 2 });
      await api.removeMembers(owner, pub, [gone]);
      const after = await api.send(owner, cid, 'after leaving secret');
      await expectDelivered(t, after.event_id, [owner, stay], [gone]);
      await api.send(stay, cid, 'after leaving 2');
      expectFail(
        await api.raw.send(gone, {
          conversation_id: cid,
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'let me in' },
        }),
        1203,
      );

      // The window is capped at the leave point.
      const w = await api.latest(gone, cid);
      expect(w.last_seq).toBe('3');
      expect(seqs(w.messages)).toEqual([1, 2, 3]);
      expect(w.has_more_after).toBe(false);
      const afterWin = await api.window(gone, cid, { after_seq: '3' });
      expect(afterWin.messages).toEqual([]);
      expect(afterWin.has_more_after).toBe(false);
      expect(afterWin.last_seq).toBe('3');
      const page = await api.window(gone, cid, { before_seq: '5' });
      expect(seqs(page.messages)).toEqual([1, 2, 3]);
      const around = api.raw.messages(gone, { conversation_id: cid, around_mid: after.message.mid });
      const aroundReply = await around;
      expect(aroundReply.body.code).not.toBe(0);
      // A calibration with the member's own values stays unchanged even though the group moved on.
      const same = await api.window(gone, cid, trioOf(w));
      expect(same.outcome).toBe('unchanged');
      expect(same.messages).toEqual([]);

      // Unread counts only what was visible; reading past the cap is refused.
      await api.expectUnread(gone, { [cid]: 2 });
      expectFail(await api.raw.read(gone, cid, '4'), 1004);
      const r = await api.read(gone, cid, '3');
      expect(r).toMatchObject({ read_seq: '3', unread: 0 });
      await api.expectUnread(gone, {});
      await api.expectUnread(stay, { [cid]: 4 });

      // Sync marks the conversation as no longer a member, capped at the leave point.
      const item = (await api.syncAll(gone)).items.find((i) => i.conversation_id === cid);
      if (item) {
        expect(item.is_member).toBe(false);
        expect(item.last_seq).toBe('3');
        expect(item.last_message?.mid).toBe(before[2].mid);
      }
      // Search never shows what was said after the leave point.
      const found = expectOk<{ items: Msg[] }>(
        await api.raw.search(gone, { conversation_id: cid, keyword: 'after leaving' }),
      );
      expect(found.items).toEqual([]);
      const foundBefore = expectOk<{ items: Msg[] }>(
        await api.raw.search(gone, { conversation_id: cid, keyword: 'before' }),
      );
      expect(foundBefore.items.map((m) => m.mid)).toEqual(before.map((m) => m.mid).reverse());
    });

    it('a member who joined later sees only later messages and counts only them as unread', async () => {
      const owner = await api.user();
      const late = await api.user();
      const pub = randomGroupId();
      const cid = groupCid(pub);
      await factories.group(owner, [], pub);
      await api.sendMany(owner, cid, 4, 'early secret');
      t.clock.advance(1000);
      await api.addMembers(owner, pub, [late]);
      await api.expectUnread(late, {});
      const later = await api.sendMany(owner, cid, 2, 'later');
      await api.expectUnread(late, { [cid]: 2 });
      const w = await api.latest(late, cid);
      expect(seqs(w.messages)).toEqual([5, 6]);
      expect(w.has_more_before).toBe(false);
      expect(w.last_seq).toBe('6');
      const older = await api.window(late, cid, { before_seq: '5' });
      expect(older.messages).toEqual([]);
      expect(older.has_more_before).toBe(false);
      const fromZero = await api.window(late, cid, { after_seq: '0' });
      expect(seqs(fromZero.messages)).toEqual([5, 6]);
      const search = expectOk<{ items: Msg[] }>(
        await api.raw.search(late, { conversation_id: cid, keyword: 'early secret' }),
      );
      expect(search.items).toEqual([]);
      const laterSearch = expectOk<{ items: Msg[] }>(
        await api.raw.search(late, { conversation_id: cid, keyword: 'later' }),
      );
      expect(laterSearch.items.map((m) => m.mid)).toEqual(later.map((m) => m.mid).reverse());
      const r = await api.read(late, cid, '6');
      expect(r).toMatchObject({ read_seq: '6', unread: 0 });
      await api.expectUnread(late, {});
    });

    it('a disabled group refuses sending with 1218', async () => {
      const owner = await api.user();
      const member = await api.user();
      const pub = randomGroupId();
      await factories.group(owner, [member], pub);
      await api.send(member, groupCid(pub), 'before disable');
      await factories.disableGroup(pub);
      expectFail(
        await api.raw.send(member, {
          conversation_id: groupCid(pub),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'x' },
        }),
        1218,
      );
      expectFail(
        await api.raw.send(owner, {
          conversation_id: groupCid(pub),
          client_message_id: cmid(),
          type: 'text',
          content: { text: 'x' },
        }),
        1218,
      );
      await api.expectUnread(owner, { [groupCid(pub)]: 1 });
    });

    it('the owner and an admin may recall any member message without a time limit; a member may not recall an admin one', async () => {
      const owner = await api.user();
      const admin = await api.user();
      const member = await api.user();
      const pub = randomGroupId();
      const cid = groupCid(pub);
      await factories.group(owner, [admin, member], pub);
      await api.setAdmin(owner, pub, admin, true);
      const a1 = await api.send(member, cid, 'one');
      const a2 = await api.send(member, cid, 'two');
      const byAdmin = await api.send(admin, cid, 'admin says');
      t.clock.advance(3_600_000);
      expect((await api.recall(admin, cid, a1.message.mid)).message.status).toBe('recalled');
      expect((await api.recall(owner, cid, a2.message.mid)).message.status).toBe('recalled');
      expectFail(await api.raw.recall(member, cid, byAdmin.message.mid), 1208);
      expectFail(await api.raw.delete(member, cid, byAdmin.message.mid), 1208);
      await api.expectUnread(owner, { [cid]: 1 });
      await api.expectUnread(member, { [cid]: 1 });
    });

    it('an admin of one group has no rights in another group where he is a plain member', async () => {
      const ownerX = await api.user();
      const ownerY = await api.user();
      const boss = await api.user();
      const member = await api.user();
      const pubX = randomGroupId();
      const pubY = randomGroupId();
      await factories.group(ownerX, [boss, member], pubX);
      await factories.group(ownerY, [boss, member], pubY);
      await api.setAdmin(ownerX, pubX, boss, true);
      const inY = await api.send(member, groupCid(pubY), 'in Y');
      expectFail(await api.raw.recall(boss, groupCid(pubY), inY.message.mid), 1208);
      expectFail(await api.raw.delete(boss, groupCid(pubY), inY.message.mid), 1208);
      // The owner of group Y is only a member in nothing else: he may not act in group X either.
      const inX = await api.send(member, groupCid(pubX), 'in X');
      expectFail(await api.raw.recall(ownerY, groupCid(pubX), inX.message.mid), 1201);
      expect((await api.latest(member, groupCid(pubY))).messages[0]).toMatchObject({ status: 'normal' });
      await api.expectUnread(boss, { [groupCid(pubX)]: 1, [groupCid(pubY)]: 1 });
    });

    it("a removed admin can no longer recall or delete other members' messages", async () => {
      const owner = await api.user();
      const admin = await api.user();
      const member = await api.user();
      const pub = randomGroupId();
      await factories.group(owner, [admin, member], pub);
      await api.setAdmin(owner, pub, admin, true);
      const m = await api.send(member, groupCid(pub), 'keep me');
      await api.removeMembers(owner, pub, [admin]);
      const r1 = await api.raw.recall(admin, groupCid(pub), m.message.mid);
      const r2 = await api.raw.delete(admin, groupCid(pub), m.message.mid);
      expect([r1.body.code, r2.body.code].every((code: number) => code === 1201 || code === 1208)).toBe(true);
      expect((await api.latest(owner, groupCid(pub))).messages[0]).toMatchObject({
        mid: m.message.mid,
        status: 'normal',
      });
      await api.expectUnread(owner, { [groupCid(pub)]: 1 });
    });

    it("a former member's versions move only with changes inside his window, the same in sync and messages; rejoining gives the group's", async () => {
      const owner = await api.user();
      const gone = await api.user();
      const pub = randomGroupId();
      const cid = groupCid(pub);
      await factories.group(owner, [gone], pub);
      const seen = await api.sendMany(owner, cid, 3, 'seen');
      await api.leaveGroup(gone, pub);
      const later = await api.sendMany(owner, cid, 3, 'later');
      const versions = async (): Promise<{ window: MessageWindow; item: SyncItem | undefined }> => ({
        window: await api.latest(gone, cid),
        item: (await api.syncAll(gone)).items.find((i) => i.conversation_id === cid),
      });
      const agree = ({ window, item }: { window: MessageWindow; item: SyncItem | undefined }) => {
        expect(item).toMatchObject({
          last_seq: window.last_seq,
          updated_at: window.updated_at,
          deletion_revision: window.deletion_revision,
          is_member: false,
        });
      };

      const atLeave = await versions();
      agree(atLeave);
      expect(atLeave.window.last_seq).toBe('3');
      // The group's later recall and delete: nothing changes for him.
      await api.recall(owner, cid, later[0].mid);
      await api.deleteMessage(owner, cid, later[1].mid);
      const untouched = await versions();
      expect(untouched.window).toMatchObject({
        updated_at: atLeave.window.updated_at,
        deletion_revision: atLeave.window.deletion_revision,
      });
      agree(untouched);
      expect((await api.window(gone, cid, trioOf(atLeave.window))).outcome).toBe('unchanged');
      const groupNow = await api.latest(owner, cid);
      expect(groupNow.deletion_revision).not.toBe(atLeave.window.deletion_revision);

      // A recall inside his window moves his content version; a delete also his deletion revision.
      t.clock.advance(1000);
      await api.recall(owner, cid, seen[2].mid);
      const recalled = await versions();
      expect(Number(recalled.window.updated_at)).toBeGreaterThan(Number(atLeave.window.updated_at));
      expect(recalled.window.deletion_revision).toBe(atLeave.window.deletion_revision);
      agree(recalled);
      const reset = await api.window(gone, cid, trioOf(atLeave.window));
      expect(reset.outcome).toBe('reset');
      expect(reset.messages.find((m) => m.mid === seen[2].mid)).toMatchObject({ status: 'recalled', content: null });
      await api.deleteMessage(owner, cid, seen[0].mid);
      const deleted = await versions();
      expect(Number(deleted.window.updated_at)).toBeGreaterThan(Number(recalled.window.updated_at));
      expect(BigInt(deleted.window.deletion_revision)).toBeGreaterThan(BigInt(recalled.window.deletion_revision));
      agree(deleted);

      // Back in the group, he follows the group's versions again.
      await api.addMembers(owner, pub, [gone]);
      const rejoined = await versions();
      const group = await api.latest(owner, cid);
      expect(rejoined.window).toMatchObject({
        updated_at: group.updated_at,
        deletion_revision: group.deletion_revision,
        last_seq: group.last_seq,
      });
      expect(rejoined.item).toMatchObject({
        updated_at: group.updated_at,
        deletion_revision: group.deletion_revision,
        is_member: true,
      });
    });

    it('a removed member cannot recall or delete even his own message (1208), and nothing changes', async () => {
      const owner = await api.user();
      const member = await api.user();
      const pub = randomGroupId();
      await factories.group(owner, [member], pub);
      const mine = await api.send(member, groupCid(pub), 'said before leaving');
      await api.removeMembers(owner, pub, [member]);
      const before = (await api.latest(owner, groupCid(pub))).messages[0];
      for (const response of [
        await api.raw.recall(member, groupCid(pub), mine.message.mid),
        await api.raw.delete(member, groupCid(pub), mine.message.mid),
      ]) {
        expect(response.body).toMatchObject({ code: 1208, data: null });
        expect(response.body.msg).toMatch(/^mid: .*no longer a member/);
      }
      expect((await api.latest(owner, groupCid(pub))).messages[0]).toEqual(before);
      expect((await api.latest(member, groupCid(pub))).messages[0]).toMatchObject({
        mid: mine.message.mid,
        status: 'normal',
      });
      await api.expectUnread(owner, { [groupCid(pub)]: 1 });
    });

    it('a late member cannot open a window around an earlier message', async () => {
      const owner = await api.user();
      const late = await api.user();
      const pub = randomGroupId();
      await factories.group(owner, [], pub);
      const early = await api.send(owner, groupCid(pub), 'early');
      t.clock.advance(1000);
      await api.addMembers(owner, pub, [late]);
      await api.send(owner, groupCid(pub), 'late');
      const response = await api.raw.messages(late, { conversation_id: groupCid(pub), around_mid: early.message.mid });
      expect(response.body.code).not.toBe(0);
      expect(response.body.data).toBeNull();
      // nor recall/delete it as if it were visible
      const search = expectOk<{ items: Msg[] }>(
        await api.raw.search(late, { conversation_id: groupCid(pub), keyword: 'early' }),
      );
      expect(search.items).toEqual([]);
    });

    it('a member removed and then re-added does not see what was said while away', async () => {
      const owner = await api.user();
      const back = await api.user();
      const pub = randomGroupId();
      const cid = groupCid(pub);
      await factories.group(owner, [back], pub);
      await api.send(owner, cid, 'first');
      t.clock.advance(1000);
      await api.removeMembers(owner, pub, [back]);
      t.clock.advance(1000);
      await api.send(owner, cid, 'while away secret');
      t.clock.advance(1000);
      await api.addMembers(owner, pub, [back]);
      await api.send(owner, cid, 'after return');
      const w = await api.latest(back, cid);
      const texts = w.messages.map((m) => (m.content as { text: string } | null)?.text);
      expect(texts).toContain('after return');
      expect(texts).not.toContain('while away secret');
      const found = expectOk<{ items: Msg[] }>(await api.raw.search(back, { conversation_id: cid, keyword: 'secret' }));
      expect(found.items).toEqual([]);
    });

    it('tombstones after a member left do not change his unread; tombstones before it do', async () => {
      const owner = await api.user();
      const gone = await api.user();
      const stay = await api.user();
      const pub = randomGroupId();
      const cid = groupCid(pub);
      await factories.group(owner, [gone, stay], pub);
      const pre = await api.sendMany(owner, cid, 3, 'pre');
      await api.read(gone, cid, '1');
      await api.expectUnread(gone, { [cid]: 2 });
      await api.leaveGroup(gone, pub);
      const post = await api.sendMany(owner, cid, 2, 'post');
      await api.expectUnread(gone, { [cid]: 2 });
      await api.recall(owner, cid, post[0].mid);
      await api.expectUnread(gone, { [cid]: 2 });
      await api.deleteMessage(owner, cid, post[1].mid);
      await api.expectUnread(gone, { [cid]: 2 });
      await api.expectUnread(stay, { [cid]: 3 });
      await api.deleteMessage(owner, cid, pre[2].mid);
      await api.expectUnread(gone, { [cid]: 1 });
      await api.expectUnread(stay, { [cid]: 2 });
      const w = await api.latest(gone, cid);
      expect(w).toMatchObject({ last_seq: '3', unread: 1 });
    });

    it('tombstones of messages before a member joined do not change his unread', async () => {
      const owner = await api.user();
      const late = await api.user();
      const pub = randomGroupId();
      const cid = groupCid(pub);
      await factories.group(owner, [], pub);
      const early = await api.sendMany(owner, cid, 3, 'early');
      t.clock.advance(1000);
      await api.addMembers(owner, pub, [late]);
      await api.sendMany(owner, cid, 2, 'later');
      await api.expectUnread(late, { [cid]: 2 });
      await api.recall(owner, cid, early[2].mid);
      await api.deleteMessage(owner, cid, early[1].mid);
      await api.expectUnread(late, { [cid]: 2 });
      expect((await api.latest(late, cid)).unread).toBe(2);
    });

    it('a client_message_id refused for a muted member is free again once he may send', async () => {
      const owner = await api.user();
      const member = await api.user();
      const pub = randomGroupId();
      await factories.group(owner, [member], pub);
      const key = cmid();
      await api.muteMember(owner, pub, member, 3600);
      expectFail(
        await api.raw.send(member, {
          conversation_id: groupCid(pub),
          client_message_id: key,
          type: 'text',
          content: { text: 'k' },
        }),
        1203,
      );
      await api.muteMember(owner, pub, member, 0);
      const s = await api.send(member, groupCid(pub), 'k', key);
      expect(s.message).toMatchObject({ client_message_id: key, conversation_seq: '1' });
    });
  });
});
