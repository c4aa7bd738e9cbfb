// The Web SDK's call store (client.callState) against the real service, with real SDK clients
// on both sides: each phase (incoming, outgoing, ringing, ongoing, ended) and each end reason
// the service gives (hangup, rejected, busy, canceled, no_answer, interrupted,
// ended_by_server), another device of the callee answering, a group call that goes on without
// the user, and a call that rang before the client logged in (calls.active at recovery).
import type { CallView } from '../../sdk/web/src/stores/call-store';
import type { ImClient } from '../../sdk/web/src/index';
import { CallRoomEventsService } from '../../src/calls/call-room-events.service';
import { CallsApi, isolateCallTimers } from '../calls/call-helpers';
import { ApiClient, IssuedUser, friendCid, groupCid } from '../helpers/api-client';
import { issueUser } from '../helpers/test-app';
import { loggedInAs } from './api-kit';
import { until, useSdkApp } from './sdk-harness';

describe('Web SDK stores: calls', () => {
  const app = useSdkApp();
  let api: ApiClient;
  let release: () => Promise<void>;
  // The service's call timers would end these calls by another spec file's clock (MySQL); this
  // file runs its own passes.
  beforeAll(async () => {
    api = new ApiClient(app.t);
    release = await isolateCallTimers(app.t);
  });
  afterAll(() => release());

  const person = () => issueUser(app.t, { nickname: 'SDK user' });
  const device = (user: IssuedUser) => loggedInAs(app, user);

  /** A caller and a callee who are friends, each with a client. */
  async function pair(): Promise<{ caller: ImClient; callee: ImClient; a: IssuedUser; b: IssuedUser }> {
    const [a, b] = [await person(), await person()];
    await api.befriend(a, b);
    return { caller: await device(a), callee: await device(b), a, b };
  }

  /** Waits until the client's store shows the call in `phase` (and with `reason`), and answers it. */
  const shows = (c: ImClient, callId: string, phase: CallView['phase'], reason?: string) =>
    until(
      () => {
        const view = c.callState.get(callId);
        return view?.phase === phase && (reason === undefined || view.end_reason === reason) && view;
      },
      `${callId} ${phase} ${reason ?? ''}`,
    );

  it('goes outgoing → ringing → ongoing for the caller, incoming → ongoing for the callee, then ends as hangup', async () => {
    const { caller, callee, a, b } = await pair();
    const { call } = await caller.calls.start(friendCid(b), 'video');
    expect(await shows(caller, call.call_id, 'outgoing')).toMatchObject({ direction: 'outgoing', media: 'video' });
    expect(caller.callState.active?.call_id).toBe(call.call_id);
    const incoming = await shows(callee, call.call_id, 'incoming');
    expect(incoming).toMatchObject({ direction: 'incoming', conversation_id: friendCid(a) });
    expect(callee.callState.incoming?.call_id).toBe(call.call_id);
    await callee.calls.ringing(call.call_id);
    await shows(caller, call.call_id, 'ringing');
    await callee.calls.accept(call.call_id);
    await shows(callee, call.call_id, 'ongoing');
    await shows(caller, call.call_id, 'ongoing');
    expect(callee.callState.incoming).toBeNull();
    await callee.calls.hangup(call.call_id);
    await shows(caller, call.call_id, 'ended', 'hangup');
    await shows(callee, call.call_id, 'ended', 'hangup');
    expect(caller.callState.active).toBeNull();
  });

  it.each([
    ['rejected', (callee: ImClient, id: string) => callee.calls.reject(id, 'decline')],
    ['busy', (callee: ImClient, id: string) => callee.calls.reject(id, 'busy')],
  ])('ends as %s when the callee answers so', async (reason, answer) => {
    const { caller, callee, b } = await pair();
    const { call } = await caller.calls.start(friendCid(b), 'audio');
    await shows(callee, call.call_id, 'incoming');
    await answer(callee, call.call_id);
    await shows(caller, call.call_id, 'ended', reason);
    await shows(callee, call.call_id, 'ended', reason);
  });

  it('ends as canceled when the caller gives up', async () => {
    const { caller, callee, b } = await pair();
    const { call } = await caller.calls.start(friendCid(b), 'audio');
    await shows(callee, call.call_id, 'incoming');
    await caller.calls.cancel(call.call_id);
    await shows(callee, call.call_id, 'ended', 'canceled');
    await shows(caller, call.call_id, 'ended', 'canceled');
  });

  it('ends as busy at once when the callee is in another call', async () => {
    const { caller, callee, b } = await pair();
    const third = await person();
    await api.befriend(third, b);
    const first = await caller.calls.start(friendCid(b), 'audio');
    await shows(callee, first.call.call_id, 'incoming');
    await callee.calls.accept(first.call.call_id);
    const other = await device(third);
    const second = await other.calls.start(friendCid(b), 'audio');
    await shows(other, second.call.call_id, 'ended', 'busy');
    // The busy callee hears of it only at its end.
    await shows(callee, second.call.call_id, 'ended', 'busy');
    expect(callee.callState.active?.call_id).toBe(first.call.call_id);
  });

  it('ends as answered elsewhere on the device that did not answer; the one that did is in the call', async () => {
    const { caller, callee, b } = await pair();
    const otherDevice = await device(b);
    const { call } = await caller.calls.start(friendCid(b), 'audio');
    await shows(callee, call.call_id, 'incoming');
    await shows(otherDevice, call.call_id, 'incoming');
    await otherDevice.calls.accept(call.call_id);
    await shows(otherDevice, call.call_id, 'ongoing');
    await shows(callee, call.call_id, 'ended', 'other_device_accepted');
    expect(callee.callState.incoming).toBeNull();
    expect(callee.callState.active).toBeNull();
    await shows(caller, call.call_id, 'ongoing');
  });

  it('keeps ringing in a group call someone else answered; a decline ends it for the user while it goes on', async () => {
    const [owner, me, other] = [await person(), await person(), await person()];
    const gid = groupCid(await api.createGroup(owner, [me, other]));
    const [ownerDevice, myDevice, otherDevice] = [await device(owner), await device(me), await device(other)];
    const { call } = await ownerDevice.calls.start(gid, 'audio');
    await shows(myDevice, call.call_id, 'incoming');
    await shows(otherDevice, call.call_id, 'incoming');
    await otherDevice.calls.accept(call.call_id);
    await shows(ownerDevice, call.call_id, 'ongoing');
    await until(() => myDevice.callState.get(call.call_id)?.call.state === 'ongoing', 'the call ongoing');
    expect(myDevice.callState.get(call.call_id)?.phase).toBe('incoming');
    await myDevice.calls.reject(call.call_id, 'decline');
    await shows(myDevice, call.call_id, 'ended', 'rejected');
    expect(ownerDevice.callState.get(call.call_id)?.phase).toBe('ongoing');
    await otherDevice.calls.hangup(call.call_id);
    await shows(otherDevice, call.call_id, 'ended', 'left');
  });

  it('shows a call that rang before the client logged in (calls.active at recovery), and its end', async () => {
    const [a, b] = [await person(), await person()];
    await api.befriend(a, b);
    const caller = await device(a);
    const { call } = await caller.calls.start(friendCid(b), 'audio');
    const callee = await device(b);
    await shows(callee, call.call_id, 'incoming');
    await caller.calls.cancel(call.call_id);
    await shows(callee, call.call_id, 'ended', 'canceled');
  });

  describe('ended by the service', () => {
    const timers = () => app.t.app.get(CallRoomEventsService).runTimers();

    it('ends as no_answer when it rings out', async () => {
      const { caller, callee, b } = await pair();
      const { call } = await caller.calls.start(friendCid(b), 'audio');
      await shows(callee, call.call_id, 'incoming');
      app.t.clock.advance((app.t.config.calls.ringTimeoutSeconds + 1) * 1000);
      await timers();
      await timers();
      await shows(caller, call.call_id, 'ended', 'no_answer');
      await shows(callee, call.call_id, 'ended', 'no_answer');
    });

    it('ends as interrupted when the room stays empty, and as ended_by_server when the provider closes it', async () => {
      const { caller, callee, b } = await pair();
      const first = await caller.calls.start(friendCid(b), 'audio');
      await callee.calls.accept(first.call.call_id);
      await shows(caller, first.call.call_id, 'ongoing');
      app.t.clock.advance(61_000);
      await timers();
      await timers();
      await shows(caller, first.call.call_id, 'ended', 'interrupted');
      await shows(callee, first.call.call_id, 'ended', 'interrupted');

      const second = await caller.calls.start(friendCid(b), 'audio');
      await callee.calls.accept(second.call.call_id);
      await shows(callee, second.call.call_id, 'ongoing');
      const room = new CallsApi(app.t);
      const closed = await room.room(102, second.call.room_id, null, app.t.clock.now());
      expect(closed.body).toEqual({ code: 0 });
      await shows(caller, second.call.call_id, 'ended', 'ended_by_server');
      await shows(callee, second.call.call_id, 'ended', 'ended_by_server');
    });
  });
});
