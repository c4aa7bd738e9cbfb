// Black-box call transitions driven by the provider's room callback (issue 12): 103 enter,
// 104 leave, 102 room closed; duplicated, late and out-of-order events; events for rooms or
// users that are not ours. The callback always answers {"code":0} to a valid signed body.
import { RtClient, fence } from '../helpers/realtime';
import { IssuedUser, TestApp, issueUser } from '../helpers/test-app';
import { Call, CallsApi, callEvents, endedOn, friendPair, groupOf, participant, useCallApp } from './call-helpers';

describe('room callbacks drive calls (issue 12)', () => {
  const app = useCallApp();
  let t: TestApp;
  let api: CallsApi;
  beforeAll(() => {
    ({ t, api } = app);
  });
  beforeEach(() => t.clock.set(Math.max(Date.now(), t.clock.now())));

  const socket = (user: IssuedUser): Promise<RtClient> => app.socket(user);

  const room = app.roomOk;

  /** An accepted one-to-one call with a socket for the caller. */
  async function ongoingPair() {
    const pair = await friendPair(t);
    const aSock = await socket(pair.a);
    const { call } = await api.start(pair.a, pair.ab);
    await api.accept(pair.b, call.call_id);
    return { ...pair, aSock, call };
  }

  const names = (client: RtClient, call: Call): string[] => callEvents(client, call.call_id).map((e) => e.name);

  it('103: the participant is in the room and the participants get call.participant_joined', async () => {
    const { a, b, aSock, call } = await ongoingPair();
    const bSock = await socket(b);
    const now = t.clock.now();
    await room(103, call, a, now - 20);
    for (const s of [aSock, bSock]) {
      const joined = await s.waitFor(() =>
        callEvents(s, call.call_id).find((e) => e.name === 'call.participant_joined'),
      );
      expect(joined.data.user_id).toBe(a.userId);
      expect(participant(joined.data.call as Call, a).in_room).toBe(true);
    }
    await room(103, call, b, now - 10);
    const seen = await api.get(a, call.call_id);
    expect(seen.state).toBe('ongoing');
    expect(seen.participants.map((p) => [p.user_id, p.state, p.in_room])).toEqual(
      expect.arrayContaining([
        [a.userId, 'joined', true],
        [b.userId, 'joined', true],
      ]),
    );
  });

  it('103 from the caller while it still rings puts them in the room and does not answer the call', async () => {
    const { a, b, ab } = await friendPair(t);
    const { call } = await api.start(a, ab);
    await room(103, call, a, t.clock.now());
    const seen = await api.get(b, call.call_id);
    expect(seen.state).toBe('ringing');
    expect(participant(seen, a).in_room).toBe(true);
    expect(participant(seen, b).state).toBe('invited');
  });

  it('104 in a one-to-one call: call.participant_left, then the call ends hangup with its summary', async () => {
    const pair = await ongoingPair();
    const { a, b, aSock, call } = pair;
    const t0 = t.clock.now();
    await room(103, call, a, t0 - 50);
    await room(103, call, b, t0 - 40);
    t.clock.advance(5_000);
    await room(104, call, b, t.clock.now() - 10);
    const ended = await endedOn(aSock, call.call_id);
    expect(ended.data).toMatchObject({ reason: 'hangup', call: { state: 'ended' } });
    const tail = names(aSock, call).slice(-2);
    expect(tail).toEqual(['call.participant_left', 'call.ended']);
    const left = callEvents(aSock, call.call_id).find((e) => e.name === 'call.participant_left')!;
    expect(left.data.user_id).toBe(b.userId);
    const seen = await api.get(a, call.call_id);
    expect(seen).toMatchObject({ state: 'ended', end_reason: 'hangup', ended_at: t.clock.now() });
    expect(seen.duration_ms).toBe(seen.ended_at! - seen.accepted_at!);
    expect(participant(seen, b)).toMatchObject({ state: 'left', in_room: false });
    expect(await api.summaries(b, pair.ba, call.call_id)).toEqual([
      expect.objectContaining({ content: expect.objectContaining({ result: 'hangup' }) }),
    ]);
  });

  it('group: ongoing while anyone remains; ends hangup when the last participant leaves the room', async () => {
    const { users, cid } = await groupOf(t, 3);
    const [a, b, c] = users;
    const aSock = await socket(a);
    const { call } = await api.start(a, cid);
    await api.accept(b, call.call_id);
    await api.accept(c, call.call_id);
    const t0 = t.clock.now();
    for (const [who, ms] of [
      [a, t0 - 90],
      [b, t0 - 80],
      [c, t0 - 70],
    ] as const)
      await room(103, call, who, ms);
    await room(104, call, a, t0 - 30);
    await room(104, call, b, t0 - 20);
    const middle = await api.get(c, call.call_id);
    expect(middle.state).toBe('ongoing');
    expect([a, b, c].map((u) => [participant(middle, u).state, participant(middle, u).in_room])).toEqual([
      ['left', false],
      ['left', false],
      ['joined', true],
    ]);
    await room(104, call, c, t0 - 10);
    expect(await api.get(a, call.call_id)).toMatchObject({ state: 'ended', end_reason: 'hangup' });
    expect((await endedOn(aSock, call.call_id)).data.reason).toBe('hangup');
    expect(await api.summaries(b, cid, call.call_id)).toHaveLength(1);
  });

  it('102 ends the call once; a repeated 102 changes nothing', async () => {
    const { a, b, ab, aSock, call } = await ongoingPair();
    const now = t.clock.now();
    await room(102, call, null, now);
    await room(102, call, null, now);
    await room(102, call, null, now + 5);
    expect(await api.get(b, call.call_id)).toMatchObject({ state: 'ended', end_reason: 'ended_by_server' });
    await endedOn(aSock, call.call_id);
    await fence(t, a, [aSock]);
    expect(names(aSock, call).filter((n) => n === 'call.ended')).toHaveLength(1);
    expect(await api.summaries(a, ab, call.call_id)).toHaveLength(1);
  });

  describe('retried, late and out-of-order events', () => {
    it('the same 103 twice, or again with another CallbackTs, joins once', async () => {
      const { a, aSock, call } = await ongoingPair();
      const ms = t.clock.now() - 100;
      const callbackTs = t.clock.now();
      await room(103, call, a, ms, callbackTs);
      await room(103, call, a, ms, callbackTs);
      await room(103, call, a, ms, callbackTs + 30_000);
      await fence(t, a, [aSock]);
      expect(names(aSock, call).filter((n) => n === 'call.participant_joined')).toHaveLength(1);
      expect(participant(await api.get(a, call.call_id), a).in_room).toBe(true);
    });

    it('a 104 older than the 103 already applied changes nothing (the one-to-one call goes on)', async () => {
      const { a, aSock, call } = await ongoingPair();
      const ms = t.clock.now() - 1_000;
      await room(103, call, a, ms);
      await room(104, call, a, ms - 500);
      await fence(t, a, [aSock]);
      expect(names(aSock, call)).not.toContain('call.participant_left');
      const seen = await api.get(a, call.call_id);
      expect(seen.state).toBe('ongoing');
      expect(participant(seen, a)).toMatchObject({ state: 'joined', in_room: true });
    });

    it('a late 103 older than an applied 104 does not bring the participant back', async () => {
      const { users, cid } = await groupOf(t, 3);
      const [a, b, c] = users;
      const { call } = await api.start(a, cid);
      await api.accept(b, call.call_id);
      await api.accept(c, call.call_id);
      const ms = t.clock.now() - 1_000;
      await room(103, call, a, ms);
      await room(103, call, b, ms + 10);
      await room(104, call, b, ms + 100);
      await room(103, call, b, ms + 50);
      const seen = await api.get(a, call.call_id);
      expect(seen.state).toBe('ongoing');
      expect(participant(seen, b)).toMatchObject({ state: 'left', in_room: false });
    });

    it('ordering is per user: an older event of another user still applies', async () => {
      const { users, cid } = await groupOf(t, 3);
      const [a, b] = users;
      const { call } = await api.start(a, cid);
      await api.accept(b, call.call_id);
      const ms = t.clock.now() - 1_000;
      await room(103, call, a, ms);
      await room(103, call, b, ms - 600);
      const seen = await api.get(a, call.call_id);
      expect([participant(seen, a).in_room, participant(seen, b).in_room]).toEqual([true, true]);
    });
  });

  describe('events that are not about our calls are acknowledged and ignored', () => {
    it('an unknown room', async () => {
      const { a, aSock, call } = await ongoingPair();
      const other = call.room_id === 1 ? 2 : call.room_id - 1;
      for (const type of [103, 104] as const)
        expect((await api.room(type, other, a, t.clock.now())).body).toEqual({ code: 0 });
      await fence(t, a, [aSock]);
      expect(names(aSock, call)).toEqual(['call.invited', 'call.accepted']);
      expect(participant(await api.get(a, call.call_id), a).in_room).toBe(false);
    });

    it("a user of our room who is not a participant (another user's ID, a foreign ID)", async () => {
      const { a, aSock, call } = await ongoingPair();
      const stranger = await issueUser(t);
      const ms = t.clock.now() - 100;
      for (const who of [stranger, 'rtc_foreign_user', 'u999999999999']) {
        await room(103, call, who, ms);
        await room(104, call, who, ms + 10);
      }
      await fence(t, a, [aSock]);
      expect(names(aSock, call)).toEqual(['call.invited', 'call.accepted']);
      const seen = await api.get(a, call.call_id);
      expect(seen.state).toBe('ongoing');
      expect(seen.participants).toHaveLength(2);
    });

    it('events for a call that already ended', async () => {
      const { a, b, aSock, call } = await ongoingPair();
      const ended = await api.act(b, 'hangup', call.call_id);
      for (const [type, who] of [
        [103, a],
        [104, a],
        [102, null],
      ] as const)
        await room(type, call, who, t.clock.now());
      await fence(t, a, [aSock]);
      expect(names(aSock, call)).toEqual(['call.invited', 'call.accepted', 'call.ended']);
      const seen = await api.get(a, call.call_id);
      expect([seen.state, seen.end_reason, seen.ended_at, seen.duration_ms]).toEqual([
        ended.call.state,
        ended.call.end_reason,
        ended.call.ended_at,
        ended.call.duration_ms,
      ]);
      expect(seen.participants.map((p) => p.state)).toEqual(ended.call.participants.map((p) => p.state));
      expect(await api.summaries(a, call.conversation_id, call.call_id)).toHaveLength(1);
    });
  });
});
