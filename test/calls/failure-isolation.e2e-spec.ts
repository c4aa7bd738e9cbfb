// Black-box: the call summary message never collides with a client's own message keys, and one
// call that fails never holds up the others, in the timers' passes or in a batch of room events
// (it is retried, logged with its call ID and counted in im_background_item_failures_total).
import { CallRecorder } from '../../src/calls/call-recorder.service';
import { CallsRepository } from '../../src/calls/calls.repository';
import { RoomEventsFeed } from '../../src/rtc-callback/room-events-feed';
import { IssuedUser, TestApp, bearer } from '../helpers/test-app';
import { CallsApi, friendPair, participant, useCallApp } from './call-helpers';

const RING_S = 5;

describe('call summaries, the call timers and room events isolate failures', () => {
  const app = useCallApp({ CALL_RING_TIMEOUT_SECONDS: String(RING_S) });
  let t: TestApp;
  let api: CallsApi;
  beforeAll(() => {
    ({ t, api } = app);
  });
  beforeEach(() => t.clock.set(Math.max(Date.now(), t.clock.now())));
  afterEach(() => jest.restoreAllMocks());

  const send = (user: IssuedUser, conversationId: string, clientMessageId: string, text: string) =>
    t.http
      .post('/app/sdk/messages/send')
      .set(...bearer(user.token))
      .send({ conversation_id: conversationId, client_message_id: clientMessageId, type: 'text', content: { text } });

  /** The caller first sends a text keyed `call:<call_id>`, the key form the summary message once used. */
  async function callWithSquattedKey() {
    const pair = await friendPair(t);
    const { call } = await api.start(pair.a, pair.ab);
    const text = await send(pair.a, pair.ab, `call:${call.call_id}`, 'my own key');
    expect(text.body).toMatchObject({ code: 0 });
    return { ...pair, call };
  }

  const failures = async (pass: 'call_timers' | 'room_events' = 'call_timers'): Promise<number> => {
    const text = (await t.http.get('/metrics')).text;
    const line = new RegExp(`^im_background_item_failures_total\\{pass="${pass}"\\} (\\d+)$`, 'm').exec(text);
    return line ? Number(line[1]) : 0;
  };

  it.each(['cancel', 'hangup'] as const)(
    '%s ends a ringing call whose caller used "call:<call_id>" as a message key; both messages stay',
    async (action) => {
      const { a, b, ab, ba, call } = await callWithSquattedKey();
      const reply = await api.post(a, action, { call_id: call.call_id });
      expect({ status: reply.status, code: (reply.body as { code: number }).code }).toEqual({ status: 200, code: 0 });
      expect(await api.get(b, call.call_id)).toMatchObject({ state: 'ended', end_reason: 'canceled' });
      const summaries = await api.summaries(b, ba, call.call_id);
      expect(summaries).toHaveLength(1);
      const texts = (await api.window(a, ab)).messages.filter((m) => m.type === 'text');
      expect(texts).toEqual([
        expect.objectContaining({ client_message_id: `call:${call.call_id}`, content: { text: 'my own key' } }),
      ]);
    },
  );

  it('hangup ends an ongoing call whose caller used "call:<call_id>" as a message key', async () => {
    const { a, b, call } = await callWithSquattedKey();
    await api.accept(b, call.call_id);
    const reply = await api.post(a, 'hangup', { call_id: call.call_id });
    expect({ status: reply.status, code: (reply.body as { code: number }).code }).toEqual({ status: 200, code: 0 });
    expect(await api.get(b, call.call_id)).toMatchObject({ state: 'ended', end_reason: 'hangup' });
  });

  it("a summary message's key is of a form no client may send (1004 naming client_message_id)", async () => {
    const { a, b, ab, ba } = await friendPair(t);
    const { call } = await api.start(a, ab);
    await api.act(a, 'cancel', call.call_id);
    const [summary] = (await api.window(a, ab)).messages.filter((m) => m.type === 'call');
    const key = (summary as unknown as { client_message_id: string }).client_message_id;
    // Keys are per sender: the callee has never used it, so only its form can refuse it.
    for (const [user, cid] of [
      [b, ba],
      [a, ab],
    ] as const) {
      const refused = await send(user, cid, key, 'reuse');
      expect(refused.body).toMatchObject({ code: 1004, msg: expect.stringContaining('client_message_id') });
    }
  });

  it('a call record cannot be recalled or deleted by its caller (1208 naming mid), and stays as it is', async () => {
    const { a, b, ab, ba } = await friendPair(t);
    const { call } = await api.start(a, ab);
    await api.act(a, 'cancel', call.call_id);
    const [record] = (await api.window(a, ab)).messages.filter((m) => m.type === 'call');
    for (const action of ['recall', 'delete'] as const) {
      const refused = await t.http
        .post(`/app/sdk/messages/${action}`)
        .set(...bearer(a.token))
        .send({ conversation_id: ab, mid: record.mid });
      expect(refused.body).toEqual({
        code: 1208,
        msg: `mid: a call record cannot be ${action === 'recall' ? 'recalled' : 'deleted'} by its caller`,
        data: null,
      });
    }
    const [seen] = (await api.window(b, ba)).messages.filter((m) => m.type === 'call');
    expect(seen).toEqual({ ...record, conversation_id: ba });
  });

  it('the ring timeout ends every due call, also one whose caller squatted its summary key', async () => {
    const squatted = await callWithSquattedKey();
    t.clock.advance(1_000);
    const other = await friendPair(t);
    const { call } = await api.start(other.a, other.ab);
    t.clock.advance(RING_S * 1000 + 100);
    await api.timers();
    expect(await api.get(squatted.a, squatted.call.call_id)).toMatchObject({
      state: 'ended',
      end_reason: 'no_answer',
    });
    expect(await api.get(other.a, call.call_id)).toMatchObject({ state: 'ended', end_reason: 'no_answer' });
  });

  it('a call that fails to end does not hold up the others; it is counted, backs off, and ends on a later pass', async () => {
    const first = await friendPair(t);
    const failing = (await api.start(first.a, first.ab)).call;
    t.clock.advance(1_000);
    const second = await friendPair(t);
    const healthy = (await api.start(second.a, second.ab)).call;
    const recorder = t.app.get(CallRecorder);
    const end = recorder.end.bind(recorder);
    let attempts = 0;
    jest.spyOn(recorder, 'end').mockImplementation(async (manager, context, reason, now) => {
      if (context.call.callId === failing.call_id) {
        attempts += 1;
        throw new Error('injected failure');
      }
      return end(manager, context, reason, now);
    });
    const before = await failures();
    t.clock.advance(RING_S * 1000 + 100);
    await api.timers();
    expect(await api.get(second.a, healthy.call_id)).toMatchObject({ state: 'ended', end_reason: 'no_answer' });
    expect((await api.get(first.a, failing.call_id)).state).toBe('ringing');
    expect(await failures()).toBe(before + 1);
    expect(attempts).toBe(1);

    // Backing off: within a second it is left out of the pass; after it, tried again (and fails).
    t.clock.advance(500);
    await api.timers();
    expect(attempts).toBe(1);
    t.clock.advance(600);
    await api.timers();
    expect(attempts).toBe(2);
    expect(await failures()).toBe(before + 2);

    // Then two seconds; once the fault is gone, the call ends.
    jest.restoreAllMocks();
    t.clock.advance(1000);
    await api.timers();
    expect((await api.get(first.a, failing.call_id)).state).toBe('ringing');
    t.clock.advance(1100);
    await api.timers();
    const ended = await api.get(first.b, failing.call_id);
    expect(ended).toMatchObject({ state: 'ended', end_reason: 'no_answer' });
    expect(participant(ended, first.b).state).toBe('invited');
  });

  it('a call whose room events fail to apply does not hold up the other calls of the batch; counted, and applied by a later pass', async () => {
    const first = await friendPair(t);
    const failing = (await api.start(first.a, first.ab)).call;
    const second = await friendPair(t);
    const healthy = (await api.start(second.a, second.ab)).call;
    // Both callees enter their rooms while nothing can be applied: the events are stored,
    // answered and left to the pass, which then takes them in one batch.
    const feed = t.app.get(RoomEventsFeed);
    jest.spyOn(t.app.get(CallsRepository), 'findByLiveRooms').mockRejectedValue(new Error('injected outage'));
    const t0 = t.clock.now();
    await app.roomOk(103, failing, first.b, t0 + 100);
    await app.roomOk(103, healthy, second.b, t0 + 100);
    await feed.settle();
    jest.restoreAllMocks();
    expect((await api.get(second.a, healthy.call_id)).state).toBe('ringing');

    const recorder = t.app.get(CallRecorder);
    const emit = recorder.emit.bind(recorder);
    let attempts = 0;
    jest.spyOn(recorder, 'emit').mockImplementation(async (...args: Parameters<CallRecorder['emit']>) => {
      if (args[2].callId === failing.call_id) {
        attempts += 1;
        throw new Error('injected failure');
      }
      return emit(...args);
    });
    const before = await failures('room_events');
    await api.timers();
    const applied = await api.get(second.a, healthy.call_id);
    expect(applied.state).toBe('ongoing');
    expect(participant(applied, second.b)).toMatchObject({ state: 'joined', in_room: true });
    const held = await api.get(first.a, failing.call_id);
    expect(held.state).toBe('ringing');
    expect(participant(held, first.b).in_room).toBe(false);
    expect(attempts).toBeGreaterThan(0);
    expect(await failures('room_events')).toBe(before + attempts);

    // The fault gone, the next pass applies the held room's event.
    jest.restoreAllMocks();
    await api.timers();
    const recovered = await api.get(first.a, failing.call_id);
    expect(recovered.state).toBe('ongoing');
    expect(participant(recovered, first.b)).toMatchObject({ state: 'joined', in_room: true });
  });
});
