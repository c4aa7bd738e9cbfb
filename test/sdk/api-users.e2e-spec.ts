// client.users against the service: the own profile read and updated, another user's profile and
// the lookup by username, and their refusals as typed errors. The spec fixes the user object
// (2.3) and that the user ID never changes; 1204 is its "profile inaccessible".
import { randomBytes } from 'node:crypto';
import { REFUSED, loggedInAs, refusal, sdkUser } from './api-kit';
import { until, useSdkApp } from './sdk-harness';

const username = () => `n${randomBytes(6).toString('hex')}`;

describe('Web SDK: client.users', () => {
  const app = useSdkApp();

  it("reads and updates the user's own profile; nothing changed answers event_id null", async () => {
    const alice = await sdkUser(app);
    const { user: before } = await alice.c.users.me();
    // The user object of spec 2.3, as the host's token call stored it.
    expect(before).toEqual({
      id: alice.id,
      user_id: alice.userId,
      username: '',
      nickname: 'SDK user',
      avatar: expect.stringMatching(/^https?:\/\//),
      signature: '',
      profile_updated_at: expect.any(Number),
    });
    const name = username();
    const changes = { nickname: 'Alice A', username: name, signature: 'hi there' };
    const updated = await alice.c.users.updateMe(changes);
    expect(updated).toEqual({
      user: { ...before, ...changes, profile_updated_at: expect.any(Number) },
      event_id: expect.any(String),
    });
    expect(updated.user.profile_updated_at).toBeGreaterThanOrEqual(before.profile_updated_at);
    expect(await alice.c.users.updateMe({ ...changes, user_id: alice.userId })).toEqual({
      user: updated.user,
      event_id: null,
    });
    expect((await alice.c.users.me()).user).toEqual(updated.user);
  });

  it('keeps currentUser current: at once on this device, from user.profile_updated on another', async () => {
    const alice = await sdkUser(app);
    const other = await loggedInAs(app, alice);
    await alice.c.users.updateMe({ nickname: 'Renamed', signature: 'new line' });
    expect(alice.c.currentUser).toMatchObject({ user_id: alice.userId, nickname: 'Renamed', signature: 'new line' });
    await until(() => other.currentUser?.nickname === 'Renamed', "the other device's currentUser");
    expect(other.currentUser).toMatchObject({ user_id: alice.userId, signature: 'new line' });
  });

  it("reads friends' presence (strangers left out) and refuses a malformed list", async () => {
    const [alice, bob, carol] = [await sdkUser(app), await sdkUser(app), await sdkUser(app)];
    await alice.c.friends.sendRequest(bob.userId);
    const [request] = (await bob.c.friends.listRequests('incoming')).items;
    await bob.c.friends.acceptRequest(request.id);
    // bob and carol are connected (sdkUser waits for the connection); carol is no friend of alice's.
    expect(await alice.c.users.presence([carol.userId, bob.userId])).toEqual({
      items: [{ user_id: bob.userId, online: true, last_seen_at: null }],
    });
    expect(await refusal(alice.c.users.presence([]))).toEqual(REFUSED(1004));
  });

  it("reads another user's profile and finds one by exact username", async () => {
    const [alice, bob] = [await sdkUser(app), await sdkUser(app)];
    const name = username();
    const { user } = await alice.c.users.updateMe({ username: name });
    expect(await bob.c.users.profile(alice.userId)).toEqual({ user });
    expect(await bob.c.users.lookup(name)).toEqual({ user });
    // Exact and case-sensitive.
    expect(await refusal(bob.c.users.lookup(name.toUpperCase()))).toEqual(REFUSED(1204));
  });

  it('refuses: a taken username or another user ID (1004), an unknown user and one who blocked the caller (1204)', async () => {
    const [alice, bob] = [await sdkUser(app), await sdkUser(app)];
    const name = username();
    await alice.c.users.updateMe({ username: name });
    expect(await refusal(bob.c.users.updateMe({ username: name }))).toEqual(REFUSED(1004));
    // Spec 2.3: the user ID cannot be changed by a profile update.
    expect(await refusal(bob.c.users.updateMe({ user_id: alice.userId }))).toEqual(REFUSED(1004));
    expect(await refusal(bob.c.users.profile(`nobody_${randomBytes(6).toString('hex')}`))).toEqual(REFUSED(1204));
    await alice.c.friends.block(bob.userId);
    expect(await refusal(bob.c.users.profile(alice.userId))).toEqual(REFUSED(1204));
    expect(await refusal(bob.c.users.lookup(name))).toEqual(REFUSED(1204));
    // The blocker still sees the blocked user.
    expect((await alice.c.users.profile(bob.userId)).user.user_id).toBe(bob.userId);
  });
});
