// Black-box room callbacks: a one-to-one call ends when either side leaves the room, in every
// state (the caller leaving before an answer cancels it); a room-wide event (102) is ordered by
// EventMsTs against the participant events of the same room, so a stale one undoes nothing.
import { RtClient } from '../helpers/realtime';
import { IssuedUser, TestApp } from '../helpers/test-app';
import { CallsApi, callEvents, endedOn, friendPair, groupOf, participant, useCallApp } from './call-helpers';

describe('room callbacks: leaving ends one-to-one calls; room-wide events are ordered', () => {
  const app = useCallApp();
  let t: TestApp;
  let api: CallsApi;
  beforeAll(() => {
    ({ t, api } = app);
  });
  beforeEach(() => t.clock.set(Math.max(Date.now(), t.clock.now())));

  const socket = (user: IssuedUser): Promise<RtClient> => app.socket(user);

  const room = app.roomOk;

  describe('one-to-one: the caller leaving the room while it rings', () => {
    it('cancels the call: call.canceled then call.ended, the summary, and nothing left to accept', async () => {
      const { a, b, ab, ba } = await friendPair(t);
      const [aSock, bSock] = [await socket(a), await socket(b)];
      const { call } = await api.start(a, ab);
      await api.act(b, 'ringing', call.call_id);
      const t0 = t.clock.now();
      await room(103, call, a, t0 + 100);
      t.clock.advance(2_000);
      await room(104, call, a, t0 + 1_500);
      for (const s of [aSock, bSock]) {
        expect((await endedOn(s, call.call_id)).data.reason).toBe('canceled');
        expect(
          callEvents(s, call.call_id)
            .map((e) => e.name)
            .slice(-2),
        ).toEqual(['call.canceled', 'call.ended']);
      }
      const seen = await api.get(b, call.call_id);
      expect(seen).toMatchObject({ state: 'ended', end_reason: 'canceled', accepted_at: null, duration_ms: null });
      expect(participant(seen, a)).toMatchObject({ state: 'left', in_room: false });
      expect((await api.acceptRaw(b, call.call_id)).body.code).toBe(1216);
      expect(await api.summaries(b, ba, call.call_id)).toEqual([
        expect.objectContaining({ content: expect.objectContaining({ result: 'canceled' }) }),
      ]);
      expect((await api.window(b, ba)).unread).toBe(1);
      const hangup = await api.act(a, 'hangup', call.call_id);
      expect(hangup).toMatchObject({ event_id: null, call: { state: 'ended', end_reason: 'canceled' } });
    });

    it('a stale 104 older than the caller’s 103 changes nothing (the call still rings)', async () => {
      const { a, b, ab } = await friendPair(t);
      const { call } = await api.start(a, ab);
      const t0 = t.clock.now();
      await room(103, call, a, t0 + 100);
      await room(104, call, a, t0 + 50);
      const seen = await api.get(b, call.call_id);
      expect(seen.state).toBe('ringing');
      expect(participant(seen, a)).toMatchObject({ state: 'joined', in_room: true });
    });
  });

  it('group: the caller leaving a ringing call nobody answered cancels it, as hanging up does', async () => {
    const { users, cid } = await groupOf(t, 3);
    const [a, b] = users;
    const { call } = await api.start(a, cid);
    const t0 = t.clock.now();
    await room(103, call, a, t0 + 10);
    await room(104, call, a, t0 + 20);
    expect(await api.get(b, call.call_id)).toMatchObject({ state: 'ended', end_reason: 'canceled' });
    expect((await api.acceptRaw(b, call.call_id)).body.code).toBe(1216);
  });

  describe('room-wide events against participant events', () => {
    it('a 102 stamped before both participants entered undoes nothing', async () => {
      const { a, b, ab } = await friendPair(t);
      const { call } = await api.start(a, ab);
      await api.accept(b, call.call_id);
      const t0 = t.clock.now();
      await room(103, call, a, t0 + 2_000);
      await room(103, call, b, t0 + 2_100);
      await room(102, call, null, t0 + 1_000);
      const seen = await api.get(a, call.call_id);
      expect(seen).toMatchObject({ state: 'ongoing', end_reason: null });
      expect([a, b].map((u) => [participant(seen, u).state, participant(seen, u).in_room])).toEqual([
        ['joined', true],
        ['joined', true],
      ]);
    });

    it('a 102 between two participants’ 103s is stale too: the later entry is the newer state', async () => {
      const { users, cid } = await groupOf(t, 3);
      const [a, b] = users;
      const { call } = await api.start(a, cid);
      await api.accept(b, call.call_id);
      const t0 = t.clock.now();
      await room(103, call, a, t0 + 1_000);
      await room(103, call, b, t0 + 3_000);
      await room(102, call, null, t0 + 2_000);
      const seen = await api.get(a, call.call_id);
      expect(seen.state).toBe('ongoing');
      expect(participant(seen, b)).toMatchObject({ state: 'joined', in_room: true });
    });

    it('a 102 newer than every participant event ends the call; participant events older than it then change nothing', async () => {
      const { a, b, ab } = await friendPair(t);
      const { call } = await api.start(a, ab);
      await api.accept(b, call.call_id);
      const t0 = t.clock.now();
      await room(103, call, a, t0 + 2_000);
      await room(103, call, b, t0 + 2_100);
      await room(102, call, null, t0 + 2_100);
      await room(103, call, b, t0 + 2_050);
      const seen = await api.get(a, call.call_id);
      expect(seen).toMatchObject({ state: 'ended', end_reason: 'ended_by_server' });
      expect([a, b].map((u) => participant(seen, u).in_room)).toEqual([false, false]);
    });
  });
});
