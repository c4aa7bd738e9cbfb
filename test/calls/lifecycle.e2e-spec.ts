// Black-box life cycle of one-to-one calls (issue 12): every end reason, times, participant
// states, GET /calls/get and /calls/active, the summary message and its unread effect, and the
// call events on the socket. Group calls: lifecycle-group.e2e-spec.ts.
import { RtClient } from '../helpers/realtime';
import { IssuedUser, TEST_SECRETS, TestApp, friendConversationId, issueUser } from '../helpers/test-app';
import { Seed } from '../helpers/factories';
import {
  CallAction,
  CallsApi,
  callEvents,
  endedOn,
  eventOn,
  friendPair,
  participant,
  providerId,
  states,
  useCallApp,
} from './call-helpers';

const RING_S = 5;

describe('one-to-one call life cycle (issue 12)', () => {
  const app = useCallApp({ CALL_RING_TIMEOUT_SECONDS: String(RING_S) });
  let t: TestApp;
  let api: CallsApi;
  beforeAll(() => {
    ({ t, api } = app);
  });
  // Time held still (and never moved back, so tokens stay valid) for exact timestamps.
  beforeEach(() => t.clock.set(Math.max(Date.now(), t.clock.now())));

  const socket = (user: IssuedUser): Promise<RtClient> => app.socket(user);

  /** The one summary message of a call, as both sides read it. */
  async function summaryOf(pair: { a: IssuedUser; b: IssuedUser; ab: string; ba: string }, callId: string) {
    const [ofA, ofB] = [await api.summaries(pair.a, pair.ab, callId), await api.summaries(pair.b, pair.ba, callId)];
    expect(ofA).toHaveLength(1);
    expect(ofB.map((m) => m.mid)).toEqual(ofA.map((m) => m.mid));
    return ofA[0];
  }

  it('rings, is accepted on one device, hangs up: times, states, events, get/active and the summary', async () => {
    const pair = await friendPair(t);
    const { a, b, ab, ba } = pair;
    const [aSock, bPhone, bWeb] = [await socket(a), await socket(b), await socket(b)];
    const t0 = t.clock.now();

    const start = await api.start(a, ab, { media: 'video', device_id: 'a-web' });
    const callId = start.call.call_id;
    expect(start.call).toMatchObject({
      conversation_id: ab,
      media: 'video',
      state: 'ringing',
      end_reason: null,
      caller_user_id: a.userId,
      started_at: t0,
      accepted_at: null,
      ended_at: null,
      duration_ms: null,
    });
    expect(start.call.room_id).toEqual(expect.any(Number));
    expect(start.call.room_id).toBeGreaterThanOrEqual(1);
    expect(start.call.room_id).toBeLessThanOrEqual(4294967294);
    expect(participant(start.call, a)).toMatchObject({ role: 'caller', state: 'joined', joined_at: t0, left_at: null });
    expect(participant(start.call, b)).toMatchObject({
      role: 'callee',
      state: 'invited',
      joined_at: null,
      left_at: null,
    });
    expect(start.credentials).toMatchObject({
      sdk_app_id: Number(TEST_SECRETS.RTC_SDK_APP_ID),
      user_id: providerId(a),
      room_id: start.call.room_id,
    });
    expect(start.event_id).toEqual(expect.any(String));

    // call.invited reaches the caller and every device of the callee, each with their own conversation ID
    for (const [client, cid] of [
      [aSock, ab],
      [bPhone, ba],
      [bWeb, ba],
    ] as const) {
      const invited = await eventOn(client, start.event_id);
      expect(invited).toMatchObject({
        name: 'call.invited',
        type: 'call.invited',
        data: { conversation_id: cid, call: { call_id: callId, state: 'ringing' } },
      });
    }
    expect((await api.active(a)).map((c) => c.call_id)).toEqual([callId]);
    expect((await api.active(b)).map((c) => [c.call_id, c.conversation_id])).toEqual([[callId, ba]]);

    const ringing = await api.act(b, 'ringing', callId);
    expect(participant(ringing.call, b).state).toBe('ringing');
    expect(await eventOn(aSock, ringing.event_id)).toMatchObject({
      name: 'call.ringing',
      data: { user_id: b.userId, call: { call_id: callId } },
    });

    t.clock.advance(2_000);
    const accepted = await api.accept(b, callId, 'b-phone');
    expect(accepted.call).toMatchObject({
      state: 'ongoing',
      accepted_at: t0 + 2_000,
      ended_at: null,
      duration_ms: null,
      conversation_id: ba,
    });
    expect(participant(accepted.call, b)).toMatchObject({ state: 'joined', joined_at: t0 + 2_000 });
    expect(accepted.credentials).toMatchObject({
      user_id: providerId(b),
      room_id: start.call.room_id,
      sdk_app_id: Number(TEST_SECRETS.RTC_SDK_APP_ID),
    });
    // the callee's other device stops ringing: it learns which device accepted
    for (const client of [aSock, bPhone, bWeb]) {
      expect(await eventOn(client, accepted.event_id)).toMatchObject({
        name: 'call.accepted',
        data: { user_id: b.userId, device_id: 'b-phone', call: { state: 'ongoing' } },
      });
    }
    expect((await api.acceptRaw(b, callId, 'b-web')).body.code).toBe(1217);

    t.clock.advance(7_000);
    const hangup = await api.act(a, 'hangup', callId);
    expect(hangup.call).toMatchObject({
      state: 'ended',
      end_reason: 'hangup',
      accepted_at: t0 + 2_000,
      ended_at: t0 + 9_000,
      duration_ms: 7_000,
    });
    expect(participant(hangup.call, a)).toMatchObject({ state: 'left', left_at: t0 + 9_000 });
    expect(states(hangup.call, [a, b])).toEqual(['left', 'left']);
    for (const client of [aSock, bPhone, bWeb]) {
      expect(await eventOn(client, hangup.event_id)).toMatchObject({
        name: 'call.ended',
        data: { reason: 'hangup', call: { call_id: callId, state: 'ended', duration_ms: 7_000 } },
      });
    }
    // each side's view, with its own conversation ID; nothing is active any more
    expect(await api.get(a, callId)).toEqual({ ...hangup.call, conversation_id: ab });
    expect(await api.get(b, callId)).toEqual({ ...hangup.call, conversation_id: ba });
    expect(await api.active(a)).toEqual([]);
    expect(await api.active(b)).toEqual([]);

    const summary = await summaryOf(pair, callId);
    expect(summary).toMatchObject({
      sender_id: a.userId,
      content: { call_id: callId, media: 'video', result: 'hangup', duration_ms: 7_000 },
    });
    await bPhone.waitFor(() =>
      bPhone.of('message.new').find((e) => (e.data.message as { mid: string }).mid === summary.mid),
    );
    // one summary per call: a repeated hangup changes nothing
    const again = await api.act(b, 'hangup', callId);
    expect(again).toMatchObject({ event_id: null, call: { state: 'ended', end_reason: 'hangup' } });
    expect(await api.summaries(a, ab, callId)).toHaveLength(1);
    expect(callEvents(bPhone, callId).map((e) => e.name)).toEqual([
      'call.invited',
      'call.ringing',
      'call.accepted',
      'call.ended',
    ]);
  });

  it('canceled: the caller cancels while it rings; the missed call is unread for the callee only', async () => {
    const pair = await friendPair(t);
    const { a, b, ab, ba } = pair;
    const bSock = await socket(b);
    const start = await api.start(a, ab);
    t.clock.advance(1_500);
    const cancel = await api.act(a, 'cancel', start.call.call_id);
    expect(cancel.call).toMatchObject({
      state: 'ended',
      end_reason: 'canceled',
      accepted_at: null,
      ended_at: start.call.started_at + 1_500,
      duration_ms: null,
    });
    expect(participant(cancel.call, a).state).toBe('left');
    const ended = await eventOn(bSock, cancel.event_id);
    expect(ended).toMatchObject({ name: 'call.ended', data: { reason: 'canceled', conversation_id: ba } });
    expect(callEvents(bSock, start.call.call_id).map((e) => e.name)).toEqual([
      'call.invited',
      'call.canceled',
      'call.ended',
    ]);
    expect(await summaryOf(pair, start.call.call_id)).toMatchObject({
      sender_id: a.userId,
      content: { media: 'audio', result: 'canceled', duration_ms: null },
    });
    expect((await api.window(b, ba)).unread).toBe(1);
    expect((await api.window(a, ab)).unread).toBe(0);
    expect(await api.active(b)).toEqual([]);
  });

  it('canceled: the caller hanging up a call that still rings cancels it', async () => {
    const { a, b, ab } = await friendPair(t);
    const start = await api.start(a, ab);
    const hangup = await api.act(a, 'hangup', start.call.call_id);
    expect(hangup.call).toMatchObject({ state: 'ended', end_reason: 'canceled' });
    expect((await api.get(b, start.call.call_id)).end_reason).toBe('canceled');
  });

  it.each([
    ['decline', 'rejected'],
    ['busy', 'busy'],
  ] as const)(
    'reject with reason %s ends the call %s; the callee is declined; call.rejected then call.ended',
    async (reason, endReason) => {
      const pair = await friendPair(t);
      const { a, b, ab } = pair;
      const aSock = await socket(a);
      const start = await api.start(a, ab, { media: 'video' });
      await api.act(b, 'ringing', start.call.call_id);
      t.clock.advance(3_000);
      const rejected = await api.reject(b, start.call.call_id, reason);
      expect(rejected.call).toMatchObject({
        state: 'ended',
        end_reason: endReason,
        accepted_at: null,
        ended_at: start.call.started_at + 3_000,
        duration_ms: null,
      });
      expect(participant(rejected.call, b).state).toBe('declined');
      expect(rejected.credentials).toBeNull();
      await endedOn(aSock, start.call.call_id);
      const events = callEvents(aSock, start.call.call_id);
      expect(events.map((e) => e.name)).toEqual(['call.invited', 'call.ringing', 'call.rejected', 'call.ended']);
      expect(events[2].data).toMatchObject({ user_id: b.userId, reason });
      expect(events[3].data).toMatchObject({ reason: endReason });
      expect(rejected.event_id === events[2].event_id || rejected.event_id === events[3].event_id).toBe(true);
      expect(await summaryOf(pair, start.call.call_id)).toMatchObject({
        content: { media: 'video', result: endReason, duration_ms: null },
      });
      expect(await api.active(a)).toEqual([]);
    },
  );

  it('busy at once: a callee already in an ongoing call is answered busy, the other call goes on', async () => {
    const [a, b, c] = [await issueUser(t), await issueUser(t), await issueUser(t)];
    const seed = new Seed(t);
    await seed.friends(a.id, b.id);
    await seed.friends(c.id, b.id);
    const pair = { a, b, ab: friendConversationId(b), ba: friendConversationId(a) };
    const cb = await api.start(c, friendConversationId(b));
    await api.accept(b, cb.call.call_id);
    const bSock = await socket(b);

    const busy = await api.start(a, pair.ab);
    expect(busy.call).toMatchObject({ state: 'ended', end_reason: 'busy', accepted_at: null, duration_ms: null });
    expect(busy.call.ended_at).toBe(busy.call.started_at);
    expect(busy.credentials).toBeNull();
    expect(await summaryOf(pair, busy.call.call_id)).toMatchObject({ content: { result: 'busy' } });
    expect((await api.get(b, cb.call.call_id)).state).toBe('ongoing');
    expect((await api.active(b)).map((x) => x.call_id)).toEqual([cb.call.call_id]);
    expect(await api.active(a)).toEqual([]);
    // the busy callee's devices learn the call ended busy (whatever came before it)
    const ended = await endedOn(bSock, busy.call.call_id);
    expect(ended.data).toMatchObject({ reason: 'busy', call: { state: 'ended' } });
    expect(busy.event_id).toBe(ended.event_id);
  });

  it('no_answer: the ring timer ends a call nobody answered (CALL_RING_TIMEOUT_SECONDS)', async () => {
    const pair = await friendPair(t);
    const { a, b, ab, ba } = pair;
    const [aSock, bSock] = [await socket(a), await socket(b)];
    const start = await api.start(a, ab);
    t.clock.advance(RING_S * 1000 - 100);
    await api.timers();
    expect((await api.get(a, start.call.call_id)).state).toBe('ringing');
    t.clock.advance(200);
    await api.timers();
    const call = await api.get(b, start.call.call_id);
    expect(call).toMatchObject({
      state: 'ended',
      end_reason: 'no_answer',
      accepted_at: null,
      duration_ms: null,
      ended_at: start.call.started_at + RING_S * 1000 + 100,
    });
    for (const client of [aSock, bSock])
      expect((await endedOn(client, start.call.call_id)).data.reason).toBe('no_answer');
    expect(await summaryOf(pair, start.call.call_id)).toMatchObject({
      content: { result: 'no_answer', duration_ms: null },
    });
    expect((await api.window(b, ba)).unread).toBe(1);
    expect((await api.window(a, ab)).unread).toBe(0);
    expect((await api.acceptRaw(b, start.call.call_id)).body.code).toBe(1216);
  });

  it('interrupted: an accepted call whose room never reports anyone ends after 60 s', async () => {
    const pair = await friendPair(t);
    const { a, b, ab } = pair;
    const aSock = await socket(a);
    const start = await api.start(a, ab);
    const accepted = await api.accept(b, start.call.call_id);
    t.clock.advance(59_000);
    await api.timers();
    expect((await api.get(a, start.call.call_id)).state).toBe('ongoing');
    t.clock.advance(2_000);
    await api.timers();
    const call = await api.get(a, start.call.call_id);
    expect(call).toMatchObject({
      state: 'ended',
      end_reason: 'interrupted',
      accepted_at: accepted.call.accepted_at,
      ended_at: accepted.call.accepted_at! + 61_000,
      duration_ms: 61_000,
    });
    expect((await endedOn(aSock, start.call.call_id)).data.reason).toBe('interrupted');
    expect(await summaryOf(pair, start.call.call_id)).toMatchObject({
      content: { result: 'interrupted', duration_ms: 61_000 },
    });
  });

  it('interrupted is not applied while the room reports someone in it (103)', async () => {
    const { a, b, ab } = await friendPair(t);
    const start = await api.start(a, ab);
    await api.accept(b, start.call.call_id);
    expect((await api.room(103, start.call.room_id, a, t.clock.now())).body).toEqual({ code: 0 });
    t.clock.advance(120_000);
    await api.timers();
    const call = await api.get(a, start.call.call_id);
    expect(call.state).toBe('ongoing');
    expect(participant(call, a).in_room).toBe(true);
  });

  it('ended_by_server: the provider closing the room (102) ends an ongoing call', async () => {
    const pair = await friendPair(t);
    const { a, b, ab } = pair;
    const bSock = await socket(b);
    const start = await api.start(a, ab, { media: 'video' });
    await api.accept(b, start.call.call_id);
    t.clock.advance(4_000);
    expect((await api.room(103, start.call.room_id, a, t.clock.now() - 3_000)).body).toEqual({ code: 0 });
    expect((await api.room(102, start.call.room_id, null, t.clock.now())).body).toEqual({ code: 0 });
    const call = await api.get(b, start.call.call_id);
    expect(call).toMatchObject({
      state: 'ended',
      end_reason: 'ended_by_server',
      ended_at: t.clock.now(),
      duration_ms: 4_000,
    });
    expect((await endedOn(bSock, start.call.call_id)).data.reason).toBe('ended_by_server');
    expect(await summaryOf(pair, start.call.call_id)).toMatchObject({
      content: { media: 'video', result: 'ended_by_server', duration_ms: 4_000 },
    });
  });

  describe('start idempotency (client_call_id)', () => {
    it('a retry with the same key answers the same call and changes nothing', async () => {
      const { a, b, ab } = await friendPair(t);
      const body = { conversation_id: ab, media: 'audio', client_call_id: api.key(), device_id: 'a-web' };
      const first = await api.post(a, 'start', body);
      const retry = await api.post(a, 'start', body);
      const [one, two] = [first.body.data as CallAction, retry.body.data as CallAction];
      expect([first.body.code, retry.body.code]).toEqual([0, 0]);
      expect(two.call.call_id).toBe(one.call.call_id);
      expect(two.call.room_id).toBe(one.call.room_id);
      expect(two.event_id).toBeNull();
      expect((await api.active(b)).map((c) => c.call_id)).toEqual([one.call.call_id]);
    });

    it('the same key with another conversation, or other media, is 1004', async () => {
      const [a, b, c] = [await issueUser(t), await issueUser(t), await issueUser(t)];
      await new Seed(t).friends(a.id, b.id);
      await new Seed(t).friends(a.id, c.id);
      const key = api.key();
      const [ab, ac] = [friendConversationId(b), friendConversationId(c)];
      expect(
        (await api.post(a, 'start', { conversation_id: ab, media: 'audio', client_call_id: key, device_id: 'd' })).body
          .code,
      ).toBe(0);
      expect(
        (await api.post(a, 'start', { conversation_id: ac, media: 'audio', client_call_id: key, device_id: 'd' })).body
          .code,
      ).toBe(1004);
      expect(
        (await api.post(a, 'start', { conversation_id: ab, media: 'video', client_call_id: key, device_id: 'd' })).body
          .code,
      ).toBe(1004);
      expect(await api.active(c)).toEqual([]);
    });
  });
});
