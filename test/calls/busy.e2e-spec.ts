// Black-box: a callee already in a live call is never rung. One-to-one the call ends `busy` at
// once and the busy callee hears only that it ended; in a group the busy member is marked busy
// (declined, call.rejected with reason busy to the others) and the call rings the others.
import { RtClient, fence } from '../helpers/realtime';
import { Seed } from '../helpers/factories';
import { IssuedUser, TestApp, friendConversationId, issueUser } from '../helpers/test-app';
import { CallsApi, callEvents, endedOn, friendPair, groupOf, participant, useCallApp } from './call-helpers';

describe('a callee already in a live call is not rung', () => {
  const app = useCallApp();
  let t: TestApp;
  let api: CallsApi;
  beforeAll(() => {
    ({ t, api } = app);
  });
  beforeEach(() => t.clock.set(Math.max(Date.now(), t.clock.now())));

  const socket = (user: IssuedUser): Promise<RtClient> => app.socket(user);

  /** `user` in an ongoing one-to-one call with a fresh friend (or only ringing it, as its caller). */
  async function inCall(user: IssuedUser, answered = true): Promise<string> {
    const other = await issueUser(t);
    await new Seed(t).friends(other.id, user.id);
    if (!answered) return (await api.start(user, friendConversationId(other))).call.call_id;
    const { call } = await api.start(other, friendConversationId(user));
    await api.accept(user, call.call_id);
    return call.call_id;
  }

  const names = (client: RtClient, callId: string): string[] => callEvents(client, callId).map((e) => e.name);

  it('one-to-one: the busy callee gets no call.invited (nor call.rejected), only call.ended', async () => {
    const { a, b, ab } = await friendPair(t);
    await inCall(b);
    const [aSock, bSock] = [await socket(a), await socket(b)];
    const busy = await api.start(a, ab);
    expect(busy.call).toMatchObject({ state: 'ended', end_reason: 'busy' });
    expect(participant(busy.call, b).state).toBe('declined');
    expect((await endedOn(bSock, busy.call.call_id)).data.reason).toBe('busy');
    await endedOn(aSock, busy.call.call_id);
    expect(names(bSock, busy.call.call_id)).toEqual(['call.ended']);
    const rejected = callEvents(aSock, busy.call.call_id).find((e) => e.name === 'call.rejected');
    expect(rejected?.data).toMatchObject({ user_id: b.userId, reason: 'busy' });
    expect(names(aSock, busy.call.call_id)).not.toContain('call.invited');
  });

  it('one-to-one: calling someone who is placing a call of their own is busy too', async () => {
    const { a, b, ab } = await friendPair(t);
    await inCall(b, false);
    const bSock = await socket(b);
    const busy = await api.start(a, ab);
    expect(busy.call).toMatchObject({ state: 'ended', end_reason: 'busy' });
    await endedOn(bSock, busy.call.call_id);
    expect(names(bSock, busy.call.call_id)).toEqual(['call.ended']);
  });

  it('group: a busy member is marked busy and not rung; the call rings the others and goes on', async () => {
    const { users, cid } = await groupOf(t, 4);
    const [a, b, c, d] = users;
    const elsewhere = await inCall(b);
    const [aSock, bSock, cSock] = [await socket(a), await socket(b), await socket(c)];
    const start = await api.start(a, cid);
    const callId = start.call.call_id;
    expect(start.call.state).toBe('ringing');
    expect([b, c, d].map((u) => participant(start.call, u).state)).toEqual(['declined', 'invited', 'invited']);

    const invited = await cSock.waitFor(() => callEvents(cSock, callId).find((e) => e.name === 'call.invited'));
    expect(participant(invited.data.call as never, b).state).toBe('declined');
    const busyNote = await aSock.waitFor(() => callEvents(aSock, callId).find((e) => e.name === 'call.rejected'));
    expect(busyNote.data).toMatchObject({ user_id: b.userId, reason: 'busy' });
    await fence(t, b, [bSock]);
    expect(names(bSock, callId)).toEqual([]);
    expect((await api.active(b)).map((x) => x.call_id)).toEqual([elsewhere]);

    await api.accept(c, callId);
    expect((await api.get(a, callId)).state).toBe('ongoing');
    // Free again, the busy member may still join the group call.
    await api.act(b, 'hangup', elsewhere);
    const joined = await api.accept(b, callId);
    expect(participant(joined.call, b).state).toBe('joined');
  });

  it('group: when every member called is busy the call ends busy at once', async () => {
    const { users, cid } = await groupOf(t, 3);
    const [a, b, c] = users;
    await inCall(b);
    await inCall(c);
    const cSock = await socket(c);
    const busy = await api.start(a, cid);
    expect(busy.call).toMatchObject({ state: 'ended', end_reason: 'busy' });
    expect(busy.credentials).toBeNull();
    await endedOn(cSock, busy.call.call_id);
    expect(names(cSock, busy.call.call_id)).toEqual(['call.ended']);
    expect(await api.summaries(b, cid, busy.call.call_id)).toEqual([
      expect.objectContaining({ content: expect.objectContaining({ result: 'busy' }) }),
    ]);
  });
});
