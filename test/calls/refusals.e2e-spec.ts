// Black-box refusals of /app/sdk/calls (issue 12): 1202, 1201, 1203, 1218, 1213, 1214, 1215,
// 1216, 1217 and 1004, each with the documented condition. A refusal changes nothing.
import { Seed } from '../helpers/factories';
import {
  IssuedUser,
  TestApp,
  bearer,
  friendConversationId,
  issueUser,
  randomUserId,
  startTestApp,
} from '../helpers/test-app';
import { CallsApi, friendPair, groupOf, unknownCallId, TIMER_LOCK_WAIT_MS, isolateCallTimers } from './call-helpers';

const MAX = 3;

describe('call refusals (issue 12)', () => {
  let t: TestApp;
  let release: () => Promise<void> = async () => undefined;
  let api: CallsApi;

  beforeAll(async () => {
    t = await startTestApp({ CALL_MAX_PARTICIPANTS: String(MAX) });
    release = await isolateCallTimers(t);
    api = new CallsApi(t);
  }, TIMER_LOCK_WAIT_MS);
  afterAll(async () => {
    await release();
    await t.close();
  });

  const code = async (reply: Promise<{ body: { code: number } }>): Promise<number> => (await reply).body.code;

  /** Starting a call, and sending a message, in `cid` as `user`: the call's code follows sending's. */
  async function startAndSend(user: IssuedUser, cid: string): Promise<[number, number]> {
    const send = await t.http
      .post('/app/sdk/messages/send')
      .set(...bearer(user.token))
      .send({ conversation_id: cid, client_message_id: api.key(), type: 'text', content: { text: 'hi' } });
    return [await code(api.startRaw(user, cid)), send.body.code as number];
  }

  describe('1202: the calls capability closed', () => {
    let closed: TestApp;
    beforeAll(async () => {
      closed = await startTestApp({ CAPABILITIES_CLOSED: 'calls' });
      await isolateCallTimers(closed, false);
    });
    afterAll(() => closed.close());

    it('answers 1202 on every call endpoint and announces calls: false', async () => {
      const capi = new CallsApi(closed);
      const { a, ab } = await friendPair(closed);
      const id = unknownCallId();
      const codes = [
        await code(capi.startRaw(a, ab)),
        await code(capi.acceptRaw(a, id)),
        await code(capi.post(a, 'reject', { call_id: id, reason: 'decline' })),
        ...(await Promise.all(
          ['ringing', 'cancel', 'hangup', 'credentials'].map((action) => code(capi.post(a, action, { call_id: id }))),
        )),
        await code(capi.getRaw(a, id)),
        await code(closed.http.get('/app/sdk/calls/active').set(...bearer(a.token))),
      ];
      expect(codes).toEqual(Array(codes.length).fill(1202));
      const sync = await closed.http
        .post('/app/sdk/sync')
        .set(...bearer(a.token))
        .send({});
      expect(sync.body.data.capabilities.calls).toBe(false);
      const open = await t.http
        .post('/app/sdk/sync')
        .set(...bearer((await issueUser(t)).token))
        .send({});
      expect(open.body.data.capabilities.calls).toBe(true);
    });
  });

  describe('who may call (as for sending)', () => {
    it('1201: never friends, an unknown user, oneself, a group one is not in, an unknown group', async () => {
      const [a, b] = [await issueUser(t), await issueUser(t)];
      const { cid } = await groupOf(t, 2);
      for (const cidOf of [
        friendConversationId(b),
        friendConversationId({ userId: randomUserId() }),
        friendConversationId(a),
        cid,
        'group_g-nosuchgroup',
      ]) {
        expect(await startAndSend(a, cidOf)).toEqual([1201, 1201]);
      }
      expect(await api.active(b)).toEqual([]);
    });

    it('1203: a former friend, a block either way', async () => {
      const ex = await friendPair(t);
      expect(
        (
          await t.http
            .post('/app/sdk/friends/delete')
            .set(...bearer(ex.a.token))
            .send({ user_id: ex.b.userId })
        ).body.code,
      ).toBe(0);
      expect(await startAndSend(ex.a, ex.ab)).toEqual([1203, 1203]);
      expect(await startAndSend(ex.b, ex.ba)).toEqual([1203, 1203]);

      const blocked = await friendPair(t);
      expect(
        (
          await t.http
            .post('/app/sdk/friends/block')
            .set(...bearer(blocked.b.token))
            .send({ user_id: blocked.a.userId })
        ).body.code,
      ).toBe(0);
      expect(await startAndSend(blocked.a, blocked.ab)).toEqual([1203, 1203]);
      expect(await startAndSend(blocked.b, blocked.ba)).toEqual([1203, 1203]);
      expect(await api.active(blocked.b)).toEqual([]);
    });

    it('1203: a muted or former group member; 1218: a disabled group', async () => {
      const { users, cid, groupId, conversationRowId } = await groupOf(t, 3);
      const [owner, muted, former] = users;
      const mute = await t.http
        .post('/app/sdk/groups/members/mute')
        .set(...bearer(owner.token))
        .send({ group_id: cid.slice('group_'.length), user_id: muted.userId, duration_seconds: 600 });
      expect(mute.body.code).toBe(0);
      expect(await startAndSend(muted, cid)).toEqual([1203, 1203]);
      await new Seed(t).leaveGroup(groupId, conversationRowId, former.id);
      expect(await startAndSend(former, cid)).toEqual([1203, 1203]);

      const disabled = await groupOf(t, 2);
      await new Seed(t).disableGroup(disabled.groupId);
      expect(await startAndSend(disabled.users[0], disabled.cid)).toEqual([1218, 1218]);
      expect(await api.active(owner)).toEqual([]);
    });
  });

  it('1213: a group call over CALL_MAX_PARTICIPANTS (caller included); at the limit it rings', async () => {
    const { users, cid } = await groupOf(t, MAX + 1);
    const [a, ...others] = users;
    expect(await code(api.startRaw(a, cid))).toBe(1213);
    expect(await code(api.startRaw(a, cid, { user_ids: others.map((u) => u.userId) }))).toBe(1213);
    expect(await api.active(others[0])).toEqual([]);
    const atLimit = await api.start(a, cid, { user_ids: others.slice(0, MAX - 1).map((u) => u.userId) });
    expect(atLimit.call.participants).toHaveLength(MAX);
  });

  it("1214: an unknown call, and someone else's call, on every endpoint", async () => {
    const { a, b, ab } = await friendPair(t);
    const stranger = await issueUser(t);
    const { call } = await api.start(a, ab);
    for (const [who, id] of [
      [b, unknownCallId()],
      [stranger, call.call_id],
    ] as const) {
      const codes = [
        await code(api.getRaw(who, id)),
        await code(api.acceptRaw(who, id)),
        await code(api.post(who, 'reject', { call_id: id, reason: 'decline' })),
        ...(await Promise.all(
          ['ringing', 'cancel', 'hangup', 'credentials'].map((action) => code(api.post(who, action, { call_id: id }))),
        )),
      ];
      expect(codes).toEqual(Array(codes.length).fill(1214));
    }
    expect((await api.get(b, call.call_id)).state).toBe('ringing');
  });

  it('1215: the caller accepting or rejecting, the callee cancelling', async () => {
    const { a, b, ab } = await friendPair(t);
    const { call } = await api.start(a, ab);
    expect(await code(api.acceptRaw(a, call.call_id))).toBe(1215);
    expect(await code(api.post(a, 'reject', { call_id: call.call_id, reason: 'decline' }))).toBe(1215);
    expect(await code(api.post(b, 'cancel', { call_id: call.call_id }))).toBe(1215);
    expect((await api.get(a, call.call_id)).state).toBe('ringing');
  });

  it('1216: accepting an ended call, cancelling an answered one, rejecting after accepting', async () => {
    const ended = await friendPair(t);
    const first = await api.start(ended.a, ended.ab);
    await api.act(ended.a, 'cancel', first.call.call_id);
    expect(await code(api.acceptRaw(ended.b, first.call.call_id))).toBe(1216);
    expect(await code(api.post(ended.b, 'reject', { call_id: first.call.call_id, reason: 'decline' }))).toBe(1216);
    expect(await code(api.post(ended.b, 'ringing', { call_id: first.call.call_id }))).toBe(1216);
    expect(await code(api.post(ended.a, 'credentials', { call_id: first.call.call_id }))).toBe(1216);
    expect((await api.get(ended.a, first.call.call_id)).end_reason).toBe('canceled');

    const answered = await friendPair(t);
    const second = await api.start(answered.a, answered.ab);
    await api.accept(answered.b, second.call.call_id);
    expect(await code(api.post(answered.a, 'cancel', { call_id: second.call.call_id }))).toBe(1216);
    expect(await code(api.post(answered.b, 'reject', { call_id: second.call.call_id, reason: 'decline' }))).toBe(1216);
    expect(await api.get(answered.a, second.call.call_id)).toMatchObject({ state: 'ongoing', end_reason: null });
  });

  it('credentials: fresh ones for a joined participant of a live call; 1216 for a callee who has not joined', async () => {
    const { a, b, ab } = await friendPair(t);
    const { call } = await api.start(a, ab);
    expect(await code(api.post(b, 'credentials', { call_id: call.call_id }))).toBe(1216);
    const mine = await api.post(a, 'credentials', { call_id: call.call_id });
    expect(mine.body).toMatchObject({ code: 0, data: { room_id: call.room_id, user_id: `u${a.id}` } });
  });

  it('1217: a second device of the callee accepting', async () => {
    const { a, b, ab } = await friendPair(t);
    const { call } = await api.start(a, ab);
    expect(await code(api.acceptRaw(b, call.call_id, 'phone'))).toBe(0);
    expect(await code(api.acceptRaw(b, call.call_id, 'tablet'))).toBe(1217);
    // the device that accepted may repeat itself
    expect((await api.acceptRaw(b, call.call_id, 'phone')).body).toMatchObject({ code: 0, data: { event_id: null } });
  });

  describe('1004: malformed requests', () => {
    const valid = (cid: string): Record<string, unknown> => ({
      conversation_id: cid,
      media: 'audio',
      client_call_id: 'k-1004',
      device_id: 'dev',
    });

    it('refuses bad start bodies', async () => {
      const { a, b, ab } = await friendPair(t);
      const base = valid(ab);
      const without = (field: string) => Object.fromEntries(Object.entries(base).filter(([k]) => k !== field));
      const bodies: Array<Record<string, unknown>> = [
        { ...base, media: 'screen' },
        { ...base, media: 'AUDIO' },
        { ...base, media: 1 },
        without('media'),
        without('conversation_id'),
        without('client_call_id'),
        without('device_id'),
        { ...base, client_call_id: '' },
        { ...base, client_call_id: 'has space' },
        { ...base, client_call_id: 'x'.repeat(65) },
        { ...base, device_id: 'dev/1' },
        { ...base, conversation_id: 'not-a-conversation' },
        { ...base, user_ids: [b.userId] },
      ];
      for (const body of bodies)
        expect({ body, code: await code(api.post(a, 'start', body)) }).toEqual({ body, code: 1004 });
      expect(await api.active(b)).toEqual([]);
    });

    it('refuses bad user_ids in a group call', async () => {
      const { users, cid } = await groupOf(t, 3);
      const [a, b] = users;
      const nonMember = await issueUser(t);
      for (const userIds of [[nonMember.userId], [randomUserId()], [a.userId], [], [b.userId, b.userId], 'x', [42]]) {
        expect({ userIds, code: await code(api.startRaw(a, cid, { user_ids: userIds })) }).toEqual({
          userIds,
          code: 1004,
        });
      }
      expect(await api.active(b)).toEqual([]);
    });

    it('refuses bad call references and reasons', async () => {
      const { a, b, ab } = await friendPair(t);
      const { call } = await api.start(a, ab);
      const cases: Array<[IssuedUser, string, Record<string, unknown>]> = [
        [b, 'accept', { call_id: call.call_id }],
        [b, 'accept', { device_id: 'dev' }],
        [b, 'reject', { call_id: call.call_id }],
        [b, 'reject', { call_id: call.call_id, reason: 'later' }],
        [a, 'cancel', {}],
        [a, 'cancel', { call_id: 'NOT-A-UUID' }],
        [a, 'hangup', { call_id: 7 }],
      ];
      for (const [who, action, body] of cases)
        expect({ action, body, code: await code(api.post(who, action, body)) }).toEqual({ action, body, code: 1004 });
      expect(await code(t.http.get('/app/sdk/calls/get').set(...bearer(a.token)))).toBe(1004);
      expect((await api.get(a, call.call_id)).state).toBe('ringing');
    });
  });
});
