// A profile the host changes (POST /app/sdk/token or /users/upsert) reaches the user's devices
// and friends as user.profile_updated, as the user's own change does; a call that changes
// nothing sends nothing.
import { connect, listen } from '../helpers/realtime';
import { Seed } from '../helpers/factories';
import { IssuedUser, TestApp, hostAuth, issueUser, startTestApp } from '../helpers/test-app';

describe('host profile changes announce user.profile_updated', () => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await startTestApp();
    url = await listen(t);
  });
  afterAll(() => t.close());

  it('tells the user and their friends (not strangers) once per real change, through token and upsert', async () => {
    const [ann, friend, stranger]: IssuedUser[] = await Promise.all(Array.from({ length: 3 }, () => issueUser(t)));
    await new Seed(t).friends(ann.id, friend.id);
    const [own, watcher, outsider] = await Promise.all(
      [ann, friend, stranger].map((u) => connect(url, { auth: { token: u.token } })),
    );
    const updates = (client: typeof own) =>
      client.of('user.profile_updated').filter((e) => (e.data.user as { user_id: string }).user_id === ann.userId);

    const upsert = await t.http
      .post('/app/sdk/users/upsert')
      .set(...hostAuth())
      .send({ user_id: ann.userId, nickname: 'Ann Renamed' });
    expect(upsert.body.code).toBe(0);
    await watcher.waitFor(() => updates(watcher)[0], 5000, "the friend's user.profile_updated");
    await own.waitFor(() => updates(own)[0], 5000, "the user's own user.profile_updated");
    expect(updates(watcher)[0].data.user).toMatchObject({ user_id: ann.userId, nickname: 'Ann Renamed' });

    // The same profile again: nothing changes, nothing is sent.
    await t.http
      .post('/app/sdk/users/upsert')
      .set(...hostAuth())
      .send({ user_id: ann.userId, nickname: 'Ann Renamed' });
    const token = await t.http
      .post('/app/sdk/token')
      .set(...hostAuth())
      .send({ user_id: ann.userId, nickname: 'Ann Again', signature: 'from the host' });
    expect(token.body.code).toBe(0);
    await watcher.waitFor(() => updates(watcher)[1], 5000, 'the second change');
    expect(updates(watcher)[1].data.user).toMatchObject({ nickname: 'Ann Again', signature: 'from the host' });
    // A fence: an event sent after both calls arrives after anything they could have sent.
    await t.http
      .post('/app/sdk/users/upsert')
      .set(...hostAuth())
      .send({ user_id: ann.userId, nickname: 'Ann Fence' });
    await watcher.waitFor(() => updates(watcher)[2], 5000, 'the fence');
    expect(updates(watcher).map((e) => (e.data.user as { nickname: string }).nickname)).toEqual([
      'Ann Renamed',
      'Ann Again',
      'Ann Fence',
    ]);
    expect(updates(outsider)).toEqual([]);
    for (const client of [own, watcher, outsider]) client.close();
  });
});
