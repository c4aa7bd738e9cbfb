// client.calls against the service: a call started, rung, answered (and refused on a second
// device), read, credentialed and hung up; declined, cancelled; and the refusals as typed errors.
// The spec lists 1213–1217 without saying which code means which (7: "not shown"); the codes
// checked here are the service's mapping in docs/calls.md (1215 not allowed for this
// participant, 1216 state conflict, 1217 device conflict).
import { ApiClient, friendCid } from '../helpers/api-client';
import { isolateCallTimers } from '../calls/call-helpers';
import { TEST_SECRETS } from '../helpers/test-app';
import { useSdkApp } from './sdk-harness';
import { REFUSED, SdkUser, loggedInAs, refusal, sdkUser } from './api-kit';

describe('Web SDK: client.calls', () => {
  const app = useSdkApp();
  let release: () => Promise<void>;
  // The service's call timers would end these calls by another spec file's clock (MySQL).
  beforeAll(async () => (release = await isolateCallTimers(app.t)));
  afterAll(() => release());

  async function friends(): Promise<[SdkUser, SdkUser]> {
    const [alice, bob] = [await sdkUser(app), await sdkUser(app)];
    await new ApiClient(app.t).befriend(alice, bob);
    return [alice, bob];
  }

  it('starts, rings, answers on one device (another device is refused), reads, renews credentials and hangs up', async () => {
    const [alice, bob] = await friends();
    const started = await alice.c.calls.start(friendCid(bob), 'audio', { client_call_id: 'call-1' });
    expect(started).toEqual({
      call: expect.objectContaining({
        call_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        conversation_id: friendCid(bob),
        media: 'audio',
        state: 'ringing',
        end_reason: null,
        caller_user_id: alice.userId,
        room_id: expect.any(Number),
        accepted_at: null,
      }),
      credentials: {
        sdk_app_id: Number(TEST_SECRETS.RTC_SDK_APP_ID),
        user_id: `u${alice.id}`,
        user_sig: expect.any(String),
        room_id: started.call.room_id,
        expire_at: expect.any(Number),
      },
      event_id: expect.any(String),
    });
    const callId = started.call.call_id;
    // A retry under the same client_call_id answers the same call.
    expect((await alice.c.calls.start(friendCid(bob), 'audio', { client_call_id: 'call-1' })).call.call_id).toBe(
      callId,
    );

    const ringing = await bob.c.calls.ringing(callId);
    expect(ringing.call.participants.find((p) => p.user_id === bob.userId)).toMatchObject({
      role: 'callee',
      state: 'ringing',
    });
    expect((await bob.c.calls.active()).calls.map((c) => c.call_id)).toEqual([callId]);
    expect(await refusal(bob.c.calls.credentials(callId))).toEqual(REFUSED(1216));

    const accepted = await bob.c.calls.accept(callId);
    expect(accepted).toEqual({
      call: expect.objectContaining({
        call_id: callId,
        conversation_id: friendCid(alice),
        state: 'ongoing',
        accepted_at: expect.any(Number),
      }),
      credentials: expect.objectContaining({ user_id: `u${bob.id}`, room_id: started.call.room_id }),
      event_id: expect.any(String),
    });
    // Each client is a device with its own ID: the user's second device is refused.
    const bobsPhone = await loggedInAs(app, bob);
    expect(bobsPhone.calls.deviceId).not.toBe(bob.c.calls.deviceId);
    expect(await refusal(bobsPhone.calls.accept(callId))).toEqual(REFUSED(1217));

    expect(await alice.c.calls.credentials(callId)).toEqual({
      sdk_app_id: Number(TEST_SECRETS.RTC_SDK_APP_ID),
      user_id: `u${alice.id}`,
      user_sig: expect.any(String),
      room_id: started.call.room_id,
      expire_at: expect.any(Number),
    });
    const read = await alice.c.calls.get(callId);
    expect(read).toMatchObject({ call_id: callId, state: 'ongoing', conversation_id: friendCid(bob) });
    expect(read.participants.map((p) => [p.user_id, p.state]).sort()).toEqual(
      [
        [alice.userId, 'joined'],
        [bob.userId, 'joined'],
      ].sort(),
    );

    const hungUp = await alice.c.calls.hangup(callId);
    expect(hungUp.call).toMatchObject({ state: 'ended', end_reason: 'hangup', duration_ms: expect.any(Number) });
    expect(hungUp.event_id).toEqual(expect.any(String));
    expect((await bob.c.calls.hangup(callId)).event_id).toBeNull();
    expect((await bob.c.calls.active()).calls).toEqual([]);
  });

  it('a callee declines (decline or busy) and only a callee may; the caller cancels and only the caller may', async () => {
    const [alice, bob] = await friends();
    const first = (await alice.c.calls.start(friendCid(bob), 'video')).call.call_id;
    expect(await refusal(alice.c.calls.reject(first, 'decline'))).toEqual(REFUSED(1215));
    expect((await bob.c.calls.reject(first, 'decline')).call).toMatchObject({ state: 'ended', end_reason: 'rejected' });

    const second = (await alice.c.calls.start(friendCid(bob), 'video')).call.call_id;
    expect(second).not.toBe(first);
    expect((await bob.c.calls.reject(second, 'busy')).call).toMatchObject({ state: 'ended', end_reason: 'busy' });

    const third = (await alice.c.calls.start(friendCid(bob), 'audio')).call.call_id;
    expect(await refusal(bob.c.calls.cancel(third))).toEqual(REFUSED(1215));
    const canceled = await alice.c.calls.cancel(third);
    expect(canceled).toEqual({
      call: expect.objectContaining({ call_id: third, state: 'ended', end_reason: 'canceled' }),
      credentials: null,
      event_id: expect.any(String),
    });
    // Answering an ended call is a state conflict.
    expect(await refusal(bob.c.calls.accept(third))).toEqual(REFUSED(1216));
  });

  it('refuses a call to a user who blocked the caller (1203, as for sending) and an unknown call (1214)', async () => {
    const [alice, bob] = await friends();
    await bob.c.friends.block(alice.userId);
    expect(await refusal(alice.c.calls.start(friendCid(bob), 'audio'))).toEqual(REFUSED(1203));
    expect(await refusal(alice.c.calls.get('00000000-0000-4000-8000-000000000000'))).toEqual(REFUSED(1214));
  });
});
