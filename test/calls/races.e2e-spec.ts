// Black-box call races (issue 12), each repeated: two users calling each other at once, accept
// racing cancel, accept racing the ring timeout, two devices accepting at once. Every race must
// end in exactly one outcome, with the replies, the stored call, the socket events and the
// summary message telling the same story. Meant for MariaDB; SQLite runs them too.
import { RtClient, sleep } from '../helpers/realtime';
import { TestApp } from '../helpers/test-app';
import { Call, CallsApi, callEvents, connectAs, endedOn, friendPair, participant, useCallApp } from './call-helpers';

const ROUNDS = 20;
const RING_S = 5;

describe('call races (issue 12)', () => {
  const app = useCallApp({ CALL_RING_TIMEOUT_SECONDS: String(RING_S) });
  const sockets = app.sockets;
  let t: TestApp;
  let api: CallsApi;
  let url: string;
  beforeAll(() => {
    ({ t, api, url } = app);
  });

  /** A friend pair with one socket each, reused across the rounds of one race. */
  async function setup() {
    const pair = await friendPair(t);
    const [aSock, bSock] = [await connectAs(url, pair.a), await connectAs(url, pair.b)];
    sockets.push(aSock, bSock);
    return { ...pair, aSock, bSock };
  }

  type Setup = Awaited<ReturnType<typeof setup>>;

  /** Ends the call if it is live, waits for its call.ended on both sockets, checks one summary; answers the end reason. */
  async function finish(s: Setup, call: Call): Promise<string> {
    const now = await api.get(s.a, call.call_id);
    if (now.state !== 'ended') await api.act(s.a, 'hangup', call.call_id);
    const [ofA, ofB] = [await endedOn(s.aSock, call.call_id), await endedOn(s.bSock, call.call_id)];
    expect(ofB.event_id).toBe(ofA.event_id);
    const final = await api.get(s.a, call.call_id);
    expect(ofA.data.reason).toBe(final.end_reason);
    const summaries = await api.summaries(s.b, s.ba, call.call_id);
    expect(summaries.map((m) => m.content?.result)).toEqual([final.end_reason]);
    expect(await api.active(s.a)).toEqual([]);
    expect(await api.active(s.b)).toEqual([]);
    return final.end_reason!;
  }

  const namesOn = (client: RtClient, callId: string): string[] => callEvents(client, callId).map((e) => e.name);
  const count = (names: string[], name: string): number => names.filter((n) => n === name).length;

  it(`two users calling each other at the same moment converge on one ongoing call (${ROUNDS} rounds)`, async () => {
    const s = await setup();
    const rooms = new Set<number>();
    for (let round = 0; round < ROUNDS; round += 1) {
      const [fromA, fromB] = await Promise.all([api.startRaw(s.a, s.ab), api.startRaw(s.b, s.ba)]);
      expect([fromA.body.code, fromB.body.code]).toEqual([0, 0]);
      const [ra, rb] = [fromA.body.data.call as Call, fromB.body.data.call as Call];
      // on a miss, show what each side was answered (e.g. a second call ended busy)
      const outcome =
        rb.call_id === ra.call_id
          ? 'one call'
          : `two calls: A answered ${ra.state}/${ra.end_reason}, B answered ${rb.state}/${rb.end_reason}`;
      expect({ round, outcome }).toEqual({ round, outcome: 'one call' });
      expect([ra.state, rb.state]).toContain('ongoing');
      expect(ra.conversation_id).toBe(s.ab);
      expect(rb.conversation_id).toBe(s.ba);
      const stored = await api.get(s.a, ra.call_id);
      expect(stored.state).toBe('ongoing');
      expect([participant(stored, s.a).state, participant(stored, s.b).state]).toEqual(['joined', 'joined']);
      expect((await api.active(s.a)).map((c) => c.call_id)).toEqual([ra.call_id]);
      expect((await api.active(s.b)).map((c) => c.call_id)).toEqual([ra.call_id]);
      rooms.add(stored.room_id);
      expect(await finish(s, stored)).toBe('hangup');
      for (const client of [s.aSock, s.bSock]) {
        const names = namesOn(client, ra.call_id);
        expect([count(names, 'call.invited'), count(names, 'call.accepted'), count(names, 'call.ended')]).toEqual([
          1, 1, 1,
        ]);
      }
      // no second call was made (not even one ended busy): one summary in the conversation per round
      const calls = (await api.window(s.a, s.ab)).messages.filter((m) => m.type === 'call');
      expect(calls).toHaveLength(round + 1);
    }
    expect(rooms.size).toBe(ROUNDS);
  });

  it(`accept racing cancel ends in exactly one outcome (${ROUNDS} rounds)`, async () => {
    const s = await setup();
    const outcomes: Record<string, number> = {};
    for (let round = 0; round < ROUNDS; round += 1) {
      const { call } = await api.start(s.a, s.ab);
      // which request leaves first alternates, so both outcomes get exercised
      const acceptFirst = round % 2 === 0;
      const sends = [() => api.acceptRaw(s.b, call.call_id), () => api.post(s.a, 'cancel', { call_id: call.call_id })];
      const [first, second] = acceptFirst ? sends : [sends[1], sends[0]];
      const done = await Promise.all([first(), second()]);
      const [accept, cancel] = acceptFirst ? done : [done[1], done[0]];
      const codes = [accept.body.code, cancel.body.code];
      expect([
        [0, 1216],
        [1216, 0],
      ]).toContainEqual(codes);
      const accepted = codes[0] === 0;
      const after = await api.get(s.b, call.call_id);
      expect(after.state).toBe(accepted ? 'ongoing' : 'ended');
      const reason = await finish(s, call);
      expect(reason).toBe(accepted ? 'hangup' : 'canceled');
      for (const client of [s.aSock, s.bSock]) {
        const names = namesOn(client, call.call_id);
        expect([count(names, 'call.accepted'), count(names, 'call.canceled')]).toEqual(accepted ? [1, 0] : [0, 1]);
      }
      outcomes[reason] = (outcomes[reason] ?? 0) + 1;
    }
    expect(Object.values(outcomes).reduce((x, y) => x + y, 0)).toBe(ROUNDS);
    process.stdout.write(`[calls races ${t.driver}] accept vs cancel: ${JSON.stringify(outcomes)}\n`);
  });

  it(`accept racing the ring timeout ends in exactly one outcome (${ROUNDS} rounds)`, async () => {
    const s = await setup();
    const outcomes: Record<string, number> = {};
    for (let round = 0; round < ROUNDS; round += 1) {
      const { call } = await api.start(s.a, s.ab);
      // The clock runs here: the deadline falls a few ms from now, while the accept is in
      // flight and timer passes run back to back.
      t.clock.advance(call.started_at + RING_S * 1000 - (round % 5) - t.clock.now());
      const timerPasses = async () => {
        for (let i = 0; i < 8; i += 1) {
          await api.timers();
          await sleep(1);
        }
      };
      const [accept] = await Promise.all([
        sleep(round % 3).then(() => api.acceptRaw(s.b, call.call_id)),
        timerPasses(),
      ]);
      expect([0, 1216]).toContain(accept.body.code);
      const accepted = accept.body.code === 0;
      if (accepted) expect(accept.body.data.call.state).toBe('ongoing');
      const after = await api.get(s.b, call.call_id);
      expect(after.state === 'ongoing').toBe(accepted);
      const reason = await finish(s, call);
      expect(reason).toBe(accepted ? 'hangup' : 'no_answer');
      const names = namesOn(s.aSock, call.call_id);
      expect(count(names, 'call.accepted')).toBe(accepted ? 1 : 0);
      outcomes[reason] = (outcomes[reason] ?? 0) + 1;
    }
    process.stdout.write(`[calls races ${t.driver}] accept vs ring timeout: ${JSON.stringify(outcomes)}\n`);
  });

  it(`two devices accepting at once: one gets 0, the other 1217 (${ROUNDS} rounds)`, async () => {
    const s = await setup();
    for (let round = 0; round < ROUNDS; round += 1) {
      const { call } = await api.start(s.a, s.ab);
      const replies = await Promise.all([
        api.acceptRaw(s.b, call.call_id, 'phone'),
        api.acceptRaw(s.b, call.call_id, 'tablet'),
      ]);
      expect(replies.map((r) => r.body.code).sort()).toEqual([0, 1217]);
      const winner = replies[0].body.code === 0 ? 'phone' : 'tablet';
      const stored = await api.get(s.a, call.call_id);
      expect(stored.state).toBe('ongoing');
      expect(participant(stored, s.b).state).toBe('joined');
      expect(await finish(s, call)).toBe('hangup');
      const accepted = callEvents(s.aSock, call.call_id).filter((e) => e.name === 'call.accepted');
      expect(accepted.map((e) => e.data.device_id)).toEqual([winner]);
    }
  });
});
