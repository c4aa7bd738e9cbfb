// Room events stamped only to the second (EventTs, no EventMsTs) against events of the same room
// stamped to the millisecond: a second-only stamp counts as the last millisecond of its second,
// for the room-wide 102 and for a participant's 103/104 alike.
import { IssuedUser, TestApp } from '../helpers/test-app';
import { Call, CallsApi, friendPair, groupOf, participant, providerId, useCallApp } from './call-helpers';

describe('room events stamped to the second against events stamped to the millisecond', () => {
  const app = useCallApp();
  let t: TestApp;
  let api: CallsApi;
  beforeAll(() => {
    ({ t, api } = app);
  });
  beforeEach(() => t.clock.set(Math.max(Date.now(), t.clock.now())));

  const room = (type: 102 | 103 | 104, call: Call, user: IssuedUser | null, ms: number) =>
    app.roomOk(type, call, user, ms);

  /** A signed room event carrying only EventTs (seconds), as spec 4.5 allows when EventMsTs is absent. */
  async function roomSeconds(type: 102 | 103 | 104, call: Call, user: IssuedUser | null, seconds: number) {
    const info: Record<string, unknown> = { RoomId: call.room_id, EventTs: seconds };
    if (user) info.UserId = providerId(user);
    const reply = await api.signed({ EventGroupId: 1, EventType: type, CallbackTs: t.clock.now(), EventInfo: info });
    expect({ status: reply.status, body: reply.body as unknown }).toEqual({ status: 200, body: { code: 0 } });
  }

  /** A second that starts after the call did, so that every stamp of the test is after its start. */
  const nextSecond = (): number => Math.floor(t.clock.now() / 1000) + 1;

  async function ongoingPair() {
    const { a, b, ab } = await friendPair(t);
    const { call } = await api.start(a, ab);
    await api.accept(b, call.call_id);
    return { a, b, call };
  }

  describe('the room-wide 102', () => {
    it('in the same second as the participant events before it: it closes the call', async () => {
      const { a, b, call } = await ongoingPair();
      const s = nextSecond();
      await room(103, call, a, s * 1000 + 200);
      await room(103, call, b, s * 1000 + 500);
      await roomSeconds(102, call, null, s);

      const seen = await api.get(a, call.call_id);
      expect(seen).toMatchObject({ state: 'ended', end_reason: 'ended_by_server' });
      expect([a, b].map((u) => participant(seen, u).in_room)).toEqual([false, false]);
    });

    it('from an earlier second than the participant events: it is stale and changes nothing', async () => {
      const { a, b, call } = await ongoingPair();
      const s = nextSecond();
      await room(103, call, a, s * 1000 + 200);
      await room(103, call, b, s * 1000 + 500);
      await roomSeconds(102, call, null, s - 1);

      const seen = await api.get(a, call.call_id);
      expect(seen).toMatchObject({ state: 'ongoing', end_reason: null });
      expect([a, b].map((u) => participant(seen, u).in_room)).toEqual([true, true]);
    });

    it('a participant event stamped to the millisecond within the 102’s second comes before it and changes nothing', async () => {
      const { users, cid } = await groupOf(t, 3);
      const [c, d, e] = users;
      const { call } = await api.start(c, cid);
      await api.accept(d, call.call_id);
      const s = nextSecond();
      await room(103, call, c, s * 1000 + 100);
      await roomSeconds(102, call, null, s);
      await room(103, call, e, s * 1000 + 900);

      const seen = await api.get(c, call.call_id);
      expect(seen).toMatchObject({ state: 'ended', end_reason: 'ended_by_server' });
      expect(participant(seen, e).in_room).toBe(false);
    });
  });

  describe('a participant’s 103/104', () => {
    it('a 104 stamped to the second after a 103 of the same second stamped to the millisecond: the leave applies', async () => {
      const { a, b, call } = await ongoingPair();
      const s = nextSecond();
      await room(103, call, a, s * 1000 + 100);
      await room(103, call, b, s * 1000 + 500);
      await roomSeconds(104, call, b, s);

      const seen = await api.get(a, call.call_id);
      expect(seen).toMatchObject({ state: 'ended', end_reason: 'hangup' });
      expect(participant(seen, b)).toMatchObject({ state: 'left', in_room: false });
    });

    it('a 103 stamped to an earlier second than a 104 stamped to the millisecond: stale, the participant stays out', async () => {
      const { users, cid } = await groupOf(t, 3);
      const [c, d] = users;
      const { call } = await api.start(c, cid);
      await api.accept(d, call.call_id);
      const s = nextSecond();
      await room(103, call, c, s * 1000 + 50);
      await room(103, call, d, s * 1000 + 100);
      await room(104, call, d, s * 1000 + 300);
      await roomSeconds(103, call, d, s - 1);

      const seen = await api.get(c, call.call_id);
      expect(seen.state).toBe('ongoing');
      expect(participant(seen, d)).toMatchObject({ state: 'left', in_room: false });
    });

    it('a 103 stamped to the second counts as the end of its second: a 104 stamped to the millisecond in it is older, one in the next second applies', async () => {
      const { users, cid } = await groupOf(t, 3);
      const [c, d] = users;
      const { call } = await api.start(c, cid);
      await api.accept(d, call.call_id);
      const s = nextSecond();
      await room(103, call, c, s * 1000 + 50);
      await roomSeconds(103, call, d, s);
      await room(104, call, d, s * 1000 + 600);
      expect(participant(await api.get(c, call.call_id), d)).toMatchObject({ state: 'joined', in_room: true });

      await room(104, call, d, (s + 1) * 1000 + 10);
      const seen = await api.get(c, call.call_id);
      expect(seen.state).toBe('ongoing');
      expect(participant(seen, d)).toMatchObject({ state: 'left', in_room: false });
    });
  });
});
