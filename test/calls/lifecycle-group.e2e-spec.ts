// Black-box life cycle of group calls (issue 12): who is rung, participant states, each end
// reason, the summary message in the group, and the call events on the socket.
import { RtClient, fence } from '../helpers/realtime';
import { Seed } from '../helpers/factories';
import { IssuedUser, TestApp, issueUser } from '../helpers/test-app';
import {
  CallsApi,
  callEvents,
  connectAs,
  endedOn,
  eventOn,
  groupOf,
  participant,
  providerId,
  states,
  useCallApp,
} from './call-helpers';

const RING_S = 5;

describe('group call life cycle (issue 12)', () => {
  const app = useCallApp({ CALL_RING_TIMEOUT_SECONDS: String(RING_S) });
  const sockets = app.sockets;
  let t: TestApp;
  let api: CallsApi;
  let url: string;
  beforeAll(() => {
    ({ t, api, url } = app);
  });
  beforeEach(() => t.clock.set(Math.max(Date.now(), t.clock.now())));

  async function socketsOf(users: IssuedUser[]): Promise<RtClient[]> {
    const made = await Promise.all(users.map((u) => connectAs(url, u)));
    sockets.push(...made);
    return made;
  }

  async function summary(reader: IssuedUser, cid: string, callId: string) {
    const found = await api.summaries(reader, cid, callId);
    expect(found).toHaveLength(1);
    return found[0];
  }

  it('rings every other member; accepts and a decline keep it ongoing; it ends when the last participant hangs up', async () => {
    const { users, cid } = await groupOf(t, 4);
    const [a, b, c, d] = users;
    const outsider = await issueUser(t);
    const [aS, bS, cS, dS, outS] = await socketsOf([a, b, c, d, outsider]);
    const t0 = t.clock.now();

    const start = await api.start(a, cid, { media: 'video' });
    const callId = start.call.call_id;
    expect(start.call).toMatchObject({
      conversation_id: cid,
      state: 'ringing',
      media: 'video',
      caller_user_id: a.userId,
      started_at: t0,
    });
    expect(start.call.participants.map((p) => [p.user_id, p.role, p.state]).sort()).toEqual(
      [
        [a.userId, 'caller', 'joined'],
        [b.userId, 'callee', 'invited'],
        [c.userId, 'callee', 'invited'],
        [d.userId, 'callee', 'invited'],
      ].sort(),
    );
    expect(start.credentials).toMatchObject({ user_id: providerId(a), room_id: start.call.room_id });
    for (const s of [aS, bS, cS, dS])
      expect(await eventOn(s, start.event_id)).toMatchObject({
        name: 'call.invited',
        data: { conversation_id: cid, call: { call_id: callId } },
      });
    expect((await api.active(d)).map((x) => x.call_id)).toEqual([callId]);

    t.clock.advance(1_000);
    const byB = await api.accept(b, callId, 'b-phone');
    expect(byB.call).toMatchObject({ state: 'ongoing', accepted_at: t0 + 1_000 });
    expect(byB.credentials).toMatchObject({ user_id: providerId(b), room_id: start.call.room_id });
    for (const s of [aS, cS, dS])
      expect(await eventOn(s, byB.event_id)).toMatchObject({
        name: 'call.accepted',
        data: { user_id: b.userId, device_id: 'b-phone' },
      });

    const byC = await api.reject(c, callId, 'decline');
    expect(byC.call.state).toBe('ongoing');
    expect(participant(byC.call, c).state).toBe('declined');
    expect(await eventOn(aS, byC.event_id)).toMatchObject({
      name: 'call.rejected',
      data: { user_id: c.userId, reason: 'decline' },
    });

    t.clock.advance(1_000);
    const byD = await api.accept(d, callId);
    expect(byD.call.accepted_at).toBe(t0 + 1_000);
    expect(states(byD.call, [a, b, c, d])).toEqual(['joined', 'joined', 'declined', 'joined']);

    t.clock.advance(3_000);
    const aLeaves = await api.act(a, 'hangup', callId);
    expect(aLeaves.call.state).toBe('ongoing');
    expect(participant(aLeaves.call, a)).toMatchObject({ state: 'left', left_at: t0 + 5_000 });
    expect((await api.act(b, 'hangup', callId)).call.state).toBe('ongoing');
    expect(await api.active(a)).toEqual([]);
    expect((await api.active(d)).map((x) => x.call_id)).toEqual([callId]);

    t.clock.advance(4_000);
    const last = await api.act(d, 'hangup', callId);
    expect(last.call).toMatchObject({
      state: 'ended',
      end_reason: 'hangup',
      accepted_at: t0 + 1_000,
      ended_at: t0 + 9_000,
      duration_ms: 8_000,
    });
    expect(states(last.call, [a, b, c, d])).toEqual(['left', 'left', 'declined', 'left']);
    // the reply names one event of the change (here the last leave); every participant then gets call.ended
    for (const s of [aS, bS, dS]) {
      expect((await eventOn(s, last.event_id)).name).toMatch(/^call\.(participant_left|ended)$/);
      expect((await endedOn(s, callId)).data).toMatchObject({
        reason: 'hangup',
        conversation_id: cid,
        call: { state: 'ended' },
      });
    }
    expect(await summary(c, cid, callId)).toMatchObject({
      sender_id: a.userId,
      content: { media: 'video', result: 'hangup', duration_ms: 8_000 },
    });
    expect(await api.get(c, callId)).toEqual(last.call);

    await fence(t, outsider, [outS]);
    expect(outS.events.filter((e) => e.name.startsWith('call.') || e.name === 'message.new')).toEqual([]);
  });

  it('user_ids rings only the named members; another member can still read the summary', async () => {
    const { users, cid } = await groupOf(t, 4);
    const [a, b, , d] = users;
    const [bS, dS] = await socketsOf([b, d]);
    const start = await api.start(a, cid, { user_ids: [b.userId] });
    expect(start.call.participants.map((p) => p.user_id).sort()).toEqual([a.userId, b.userId].sort());
    await eventOn(bS, start.event_id);
    const cancel = await api.act(a, 'cancel', start.call.call_id);
    await eventOn(bS, cancel.event_id);
    await fence(t, d, [dS]);
    expect(callEvents(dS, start.call.call_id)).toEqual([]);
    expect(await summary(d, cid, start.call.call_id)).toMatchObject({ content: { result: 'canceled' } });
  });

  it('GET /calls/active lists every live call of the user, newest first, and drops ended ones', async () => {
    const one = await groupOf(t, 2);
    const two = await groupOf(t, 1);
    const b = one.users[1];
    await new Seed(t).joinGroup(two.groupId, two.conversationRowId, b.id);
    const first = await api.start(one.users[0], one.cid);
    t.clock.advance(10);
    const second = await api.start(two.users[0], two.cid);
    expect((await api.active(b)).map((c) => [c.call_id, c.conversation_id])).toEqual([
      [second.call.call_id, two.cid],
      [first.call.call_id, one.cid],
    ]);
    await api.act(two.users[0], 'cancel', second.call.call_id);
    expect((await api.active(b)).map((c) => c.call_id)).toEqual([first.call.call_id]);
  });

  it('another member starting while a call is live joins that call', async () => {
    const { users, cid } = await groupOf(t, 3);
    const [a, b, c] = users;
    const start = await api.start(a, cid);
    await api.accept(b, start.call.call_id);
    const join = await api.start(c, cid);
    expect(join.call.call_id).toBe(start.call.call_id);
    expect(join.call.state).toBe('ongoing');
    expect(participant(join.call, c).state).toBe('joined');
    expect(join.credentials).toMatchObject({ user_id: providerId(c), room_id: start.call.room_id });
  });

  it('canceled: the caller cancels while every callee still rings', async () => {
    const { users, cid } = await groupOf(t, 3);
    const [a, b, c] = users;
    const [bS, cS] = await socketsOf([b, c]);
    const start = await api.start(a, cid);
    await api.act(b, 'ringing', start.call.call_id);
    const cancel = await api.act(a, 'cancel', start.call.call_id);
    expect(cancel.call).toMatchObject({ state: 'ended', end_reason: 'canceled', accepted_at: null, duration_ms: null });
    for (const s of [bS, cS]) {
      expect((await eventOn(s, cancel.event_id)).data).toMatchObject({ reason: 'canceled' });
      expect(callEvents(s, start.call.call_id).map((e) => e.name)).toContain('call.canceled');
    }
    expect(await summary(b, cid, start.call.call_id)).toMatchObject({
      content: { result: 'canceled', duration_ms: null },
    });
  });

  it('rejected: the call ends only when every callee declined', async () => {
    const { users, cid } = await groupOf(t, 3);
    const [a, b, c] = users;
    const [aS] = await socketsOf([a]);
    const start = await api.start(a, cid);
    expect((await api.reject(b, start.call.call_id)).call.state).toBe('ringing');
    const last = await api.reject(c, start.call.call_id);
    expect(last.call).toMatchObject({ state: 'ended', end_reason: 'rejected', accepted_at: null, duration_ms: null });
    expect(states(last.call, [b, c])).toEqual(['declined', 'declined']);
    expect((await endedOn(aS, start.call.call_id)).data.reason).toBe('rejected');
    expect(await summary(a, cid, start.call.call_id)).toMatchObject({ content: { result: 'rejected' } });
  });

  it('no_answer: nobody answers within the ring timeout; the missed call is unread for the callees', async () => {
    const { users, cid } = await groupOf(t, 3);
    const [a, b, c] = users;
    const [cS] = await socketsOf([c]);
    const start = await api.start(a, cid);
    t.clock.advance(RING_S * 1000 - 100);
    await api.timers();
    expect((await api.get(b, start.call.call_id)).state).toBe('ringing');
    t.clock.advance(200);
    await api.timers();
    expect(await api.get(b, start.call.call_id)).toMatchObject({
      state: 'ended',
      end_reason: 'no_answer',
      duration_ms: null,
    });
    expect((await endedOn(cS, start.call.call_id)).data.reason).toBe('no_answer');
    expect(await summary(b, cid, start.call.call_id)).toMatchObject({ content: { result: 'no_answer' } });
    expect((await api.window(b, cid)).unread).toBe(1);
    expect((await api.window(c, cid)).unread).toBe(1);
    expect((await api.window(a, cid)).unread).toBe(0);
  });

  it('the ring timeout does not end a group call someone accepted', async () => {
    const { users, cid } = await groupOf(t, 3);
    const [a, b] = users;
    const start = await api.start(a, cid);
    await api.accept(b, start.call.call_id);
    t.clock.advance(RING_S * 1000 + 1_000);
    await api.timers();
    expect((await api.get(a, start.call.call_id)).state).toBe('ongoing');
  });

  it('interrupted: the room reports nobody for 60 s while a joined participant never entered', async () => {
    const { users, cid } = await groupOf(t, 3);
    const [a, b, c] = users;
    const [aS] = await socketsOf([a]);
    const start = await api.start(a, cid);
    const room = start.call.room_id;
    await api.accept(b, start.call.call_id);
    await api.accept(c, start.call.call_id);
    const t0 = t.clock.now();
    for (const [type, who, ms] of [
      [103, a, t0 - 40],
      [103, b, t0 - 30],
      [104, a, t0 - 20],
      [104, b, t0 - 10],
    ] as const) {
      expect((await api.room(type, room, who, ms)).body).toEqual({ code: 0 });
    }
    const emptied = await api.get(a, start.call.call_id);
    expect(emptied.state).toBe('ongoing');
    expect(emptied.participants.filter((p) => p.in_room)).toEqual([]);
    expect(participant(emptied, c).state).toBe('joined');
    t.clock.advance(58_000);
    await api.timers();
    expect((await api.get(a, start.call.call_id)).state).toBe('ongoing');
    t.clock.advance(3_000);
    await api.timers();
    expect(await api.get(c, start.call.call_id)).toMatchObject({ state: 'ended', end_reason: 'interrupted' });
    expect((await endedOn(aS, start.call.call_id)).data.reason).toBe('interrupted');
    expect(await summary(c, cid, start.call.call_id)).toMatchObject({ content: { result: 'interrupted' } });
  });

  it('ended_by_server: room closed (102) ends the group call', async () => {
    const { users, cid } = await groupOf(t, 3);
    const [a, b] = users;
    const start = await api.start(a, cid);
    await api.accept(b, start.call.call_id);
    await api.room(103, start.call.room_id, a, t.clock.now());
    await api.room(103, start.call.room_id, b, t.clock.now());
    t.clock.advance(2_500);
    expect((await api.room(102, start.call.room_id, null, t.clock.now())).body).toEqual({ code: 0 });
    expect(await api.get(b, start.call.call_id)).toMatchObject({
      state: 'ended',
      end_reason: 'ended_by_server',
      duration_ms: 2_500,
    });
    expect(await summary(a, cid, start.call.call_id)).toMatchObject({
      content: { result: 'ended_by_server', duration_ms: 2_500 },
    });
  });
});
