// A live call rests on the relationship that allowed it: a block or an unfriend ends the pair's
// one-to-one call, a dismissal ends the group's call, and a member removed from the group (or
// who leaves) is dropped from it. `accept` and `ringing` check again, for an end that was missed.
import { FriendsRepository } from '../../src/friends/friends.repository';
import { TransactionRunner } from '../../src/database/transaction-runner';
import { RtClient } from '../helpers/realtime';
import { Seed } from '../helpers/factories';
import { IssuedUser, TestApp, bearer, okData } from '../helpers/test-app';
import { expectFail } from '../helpers/assertions';
import { Call, CallsApi, callEvents, endedOn, friendPair, groupOf, participant, useCallApp } from './call-helpers';

describe('calls end with the relationship they rest on', () => {
  const app = useCallApp();
  let t: TestApp;
  let api: CallsApi;
  beforeAll(() => {
    ({ t, api } = app);
  });
  beforeEach(() => t.clock.set(Math.max(Date.now(), t.clock.now())));

  const post = (user: IssuedUser, path: string, body: Record<string, unknown>) =>
    t.http
      .post(`/app/sdk/${path}`)
      .set(...bearer(user.token))
      .send(body);
  const ok = async (user: IssuedUser, path: string, body: Record<string, unknown>) =>
    okData<Record<string, unknown>>(await post(user, path, body));

  /** The names of the call's events a socket received, in order. */
  const names = (s: RtClient, callId: string): string[] => callEvents(s, callId).map((e) => e.name);

  /** Waits for call.ended on every socket and checks its reason and that call.canceled came first when expected. */
  async function endedEverywhere(sockets: RtClient[], callId: string, reason: string): Promise<void> {
    for (const s of sockets) {
      const ended = await endedOn(s, callId);
      expect(ended.data).toMatchObject({ reason, call: { call_id: callId, state: 'ended', end_reason: reason } });
      const seen = names(s, callId);
      if (reason === 'canceled') expect(seen.indexOf('call.canceled')).toBeGreaterThanOrEqual(0);
      if (reason === 'canceled') expect(seen.indexOf('call.canceled')).toBeLessThan(seen.indexOf('call.ended'));
      expect(seen.filter((n) => n === 'call.ended')).toHaveLength(1);
    }
  }

  /** A block written straight to the table: the block's notice to the calls never runs (as if it was lost). */
  async function silentBlock(blocker: IssuedUser, blocked: IssuedUser): Promise<void> {
    const friends = t.app.get(FriendsRepository);
    await t.app
      .get(TransactionRunner)
      .run((manager) => friends.insertBlock(manager, blocker.id, blocked.id, t.clock.now()));
  }

  const publicIdOf = (cid: string): string => cid.slice('group_'.length);

  describe('one-to-one', () => {
    it('a block by the callee while it rings ends it canceled on both sides, and the accept after it is refused (1216)', async () => {
      const { a, b, ab } = await friendPair(t);
      const [aS, bS] = [await app.socket(a), await app.socket(b)];
      const { call } = await api.start(a, ab);
      await ok(b, 'friends/block', { user_id: a.userId });

      await endedEverywhere([aS, bS], call.call_id, 'canceled');
      expect(await api.get(a, call.call_id)).toMatchObject({ state: 'ended', end_reason: 'canceled' });
      expectFail(await api.acceptRaw(b, call.call_id), 1216, 'call_id');
      expect(await api.active(b)).toEqual([]);
    });

    it('a block by the caller of an answered call ends it hangup on both sides', async () => {
      const { a, b, ab } = await friendPair(t);
      const [aS, bS] = [await app.socket(a), await app.socket(b)];
      const { call } = await api.start(a, ab);
      expect((await api.accept(b, call.call_id)).call.state).toBe('ongoing');
      await ok(a, 'friends/block', { user_id: b.userId });

      await endedEverywhere([aS, bS], call.call_id, 'hangup');
      expect(names(aS, call.call_id)).not.toContain('call.canceled');
      const ended = await api.get(b, call.call_id);
      expect(ended).toMatchObject({ state: 'ended', end_reason: 'hangup' });
      expect(ended.participants.map((p) => p.state)).toEqual(['left', 'left']);
    });

    it('unfriending ends the call too', async () => {
      const { a, b, ab } = await friendPair(t);
      const [aS, bS] = [await app.socket(a), await app.socket(b)];
      const { call } = await api.start(a, ab);
      await ok(b, 'friends/delete', { user_id: a.userId });

      await endedEverywhere([aS, bS], call.call_id, 'canceled');
      expectFail(await api.acceptRaw(b, call.call_id), 1216, 'call_id');
    });

    it('a block the call was not told of: accept is refused with 1216 naming it, and the call ends for both', async () => {
      const { a, b, ab } = await friendPair(t);
      const [aS, bS] = [await app.socket(a), await app.socket(b)];
      const { call } = await api.start(a, ab);
      await silentBlock(b, a);

      expectFail(await api.acceptRaw(b, call.call_id), 1216, /call_id: calling is blocked .*; the call has ended/);
      await endedEverywhere([aS, bS], call.call_id, 'canceled');
      expect(await api.get(a, call.call_id)).toMatchObject({ state: 'ended', end_reason: 'canceled' });
    });

    it('an unfriend the call was not told of: ringing is refused with 1216 naming it, and the call ends', async () => {
      const { a, b, ab } = await friendPair(t);
      const [aS, bS] = [await app.socket(a), await app.socket(b)];
      const { call } = await api.start(a, ab);
      await t.app
        .get(TransactionRunner)
        .run((manager) => t.app.get(FriendsRepository).deleteFriendshipPair(manager, a.id, b.id));

      expectFail(
        await api.post(b, 'ringing', { call_id: call.call_id }),
        1216,
        /call_id: you are no longer friends .*; the call has ended/,
      );
      await endedEverywhere([aS, bS], call.call_id, 'canceled');
    });

    it('a block of someone else, or an unblock, leaves the call alone', async () => {
      const { a, b, ab } = await friendPair(t);
      const { b: stranger } = await friendPair(t);
      const { call } = await api.start(a, ab);
      await ok(b, 'friends/block', { user_id: stranger.userId });
      await ok(b, 'friends/unblock', { user_id: stranger.userId });
      expect((await api.accept(b, call.call_id)).call.state).toBe('ongoing');
      await api.act(a, 'hangup', call.call_id);
    });
  });

  describe('group', () => {
    it('a dismissal ends a ringing group call canceled for everyone, and the accept after it is refused', async () => {
      const { users, cid } = await groupOf(t, 3);
      const [c, d, e] = users;
      const sockets = [await app.socket(c), await app.socket(d), await app.socket(e)];
      const { call } = await api.start(c, cid);
      await ok(c, 'groups/dismiss', { group_id: publicIdOf(cid) });

      await endedEverywhere(sockets, call.call_id, 'canceled');
      expectFail(await api.acceptRaw(d, call.call_id), 1216, 'call_id');
      expect(await api.get(d, call.call_id)).toMatchObject({ state: 'ended', end_reason: 'canceled' });
    });

    it('a dismissal ends an answered group call hangup', async () => {
      const { users, cid } = await groupOf(t, 3);
      const [c, d, e] = users;
      const sockets = [await app.socket(c), await app.socket(d), await app.socket(e)];
      const { call } = await api.start(c, cid);
      await api.accept(d, call.call_id);
      await ok(c, 'groups/dismiss', { group_id: publicIdOf(cid) });

      await endedEverywhere(sockets, call.call_id, 'hangup');
    });

    it('a member removed is dropped from the call, which goes on; removing the last one who could answer ends it', async () => {
      const { users, cid } = await groupOf(t, 4);
      const [c, d, e, f] = users;
      const [cS, dS, eS, fS] = [await app.socket(c), await app.socket(d), await app.socket(e), await app.socket(f)];
      const { call } = await api.start(c, cid, { user_ids: [d.userId, e.userId] });

      await ok(c, 'groups/members/remove', { group_id: publicIdOf(cid), user_ids: [d.userId] });
      for (const s of [cS, dS, eS])
        await s.waitFor(
          () => callEvents(s, call.call_id).find((x) => x.name === 'call.participant_left'),
          5000,
          'call.participant_left',
        );
      const left = callEvents(dS, call.call_id).find((x) => x.name === 'call.participant_left')!;
      expect(left.data).toMatchObject({ user_id: d.userId, call: { state: 'ringing' } });
      let now: Call = await api.get(c, call.call_id);
      expect(now.state).toBe('ringing');
      expect(participant(now, d).state).toBe('left');
      expectFail(await api.acceptRaw(d, call.call_id), 1216, /^call_id: you are no longer a member of this group$/);

      // E is the last callee who could answer: the call cannot go on.
      await ok(c, 'groups/members/remove', { group_id: publicIdOf(cid), user_ids: [e.userId] });
      await endedEverywhere([cS, eS], call.call_id, 'canceled');
      now = await api.get(c, call.call_id);
      expect(now).toMatchObject({ state: 'ended', end_reason: 'canceled' });
      expect(callEvents(fS, call.call_id)).toEqual([]);
    });

    it('a joined member who leaves the group leaves the call; the last one leaving ends it hangup', async () => {
      const { users, cid } = await groupOf(t, 3);
      const [c, d, e] = users;
      const sockets = [await app.socket(c), await app.socket(d), await app.socket(e)];
      const { call } = await api.start(c, cid);
      await api.accept(d, call.call_id);
      await api.reject(e, call.call_id);
      await api.act(c, 'hangup', call.call_id);
      expect((await api.get(d, call.call_id)).state).toBe('ongoing');

      await ok(d, 'groups/leave', { group_id: publicIdOf(cid) });
      await endedEverywhere(sockets, call.call_id, 'hangup');
    });

    it('a membership the call was not told of: accept is refused with 1216 naming it; the call rings on for the others', async () => {
      const { users, cid, groupId, conversationRowId } = await groupOf(t, 3);
      const [c, d, e] = users;
      const [cS, dS] = [await app.socket(c), await app.socket(d)];
      const { call } = await api.start(c, cid);
      await new Seed(t).leaveGroup(groupId, conversationRowId, d.id, 'removed');

      expectFail(await api.acceptRaw(d, call.call_id), 1216, /^call_id: you are no longer a member of this group$/);
      for (const s of [cS, dS])
        await s.waitFor(
          () => callEvents(s, call.call_id).find((x) => x.name === 'call.participant_left'),
          5000,
          'call.participant_left',
        );
      const now = await api.get(c, call.call_id);
      expect(now.state).toBe('ringing');
      expect(participant(now, d).state).toBe('left');
      expect((await api.accept(e, call.call_id)).call.state).toBe('ongoing');
    });

    it('a dismissal the call was not told of: accept is refused with 1216 and the call ends', async () => {
      const { users, cid, groupId, conversationRowId } = await groupOf(t, 2);
      const [c, d] = users;
      const sockets = [await app.socket(c), await app.socket(d)];
      const { call } = await api.start(c, cid);
      const seed = new Seed(t);
      for (const u of [c, d]) await seed.leaveGroup(groupId, conversationRowId, u.id, 'removed');

      expectFail(
        await api.acceptRaw(d, call.call_id),
        1216,
        /^call_id: you are no longer a member .*; the call has ended$/,
      );
      await endedEverywhere(sockets, call.call_id, 'canceled');
    });
  });
});
