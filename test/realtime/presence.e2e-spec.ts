import { connect, listen, RtClient } from '../helpers/realtime';
import { Seed } from '../helpers/factories';
import { IssuedUser, TestApp, issueUser, startTestApp } from '../helpers/test-app';

const presenceOf = (client: RtClient, userId: string) =>
  client.of('presence.changed').filter((e) => e.data.user_id === userId);

describe('presence: online across devices, offline when the last connection closes', () => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await startTestApp();
    url = await listen(t);
  });
  afterAll(() => t.close());

  it('tells friends once when the first device connects and once when the last one leaves; strangers hear nothing', async () => {
    const [alice, friend, stranger]: IssuedUser[] = [await issueUser(t), await issueUser(t), await issueUser(t)];
    await new Seed(t).friends(alice.id, friend.id);
    const watcher = await connect(url, { auth: { token: friend.token } });
    const outsider = await connect(url, { auth: { token: stranger.token } });
    const phone = await connect(url, { auth: { token: alice.token } });
    const online = await watcher.waitFor(() => presenceOf(watcher, alice.userId)[0], 5000, 'online');
    expect(online).toMatchObject({
      type: 'presence.changed',
      position: null,
      data: { user_id: alice.userId, online: true, last_seen_at: null },
    });

    const web = await connect(url, { auth: { token: alice.token } });
    phone.close();
    // The second device keeps alice online (an offline notice would arrive well within the wait).
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(presenceOf(watcher, alice.userId)).toHaveLength(1);

    const before = Date.now();
    web.close();
    const offline = await watcher.waitFor(() => presenceOf(watcher, alice.userId)[1], 5000, 'offline');
    expect(offline.data).toMatchObject({ user_id: alice.userId, online: false });
    expect(offline.data.last_seen_at as number).toBeGreaterThanOrEqual(before - 5000);
    expect(presenceOf(outsider, alice.userId)).toEqual([]);
    watcher.close();
    outsider.close();
  });
});

const mysqlOnly = process.env.E2E_DATABASE_URL?.startsWith('mysql') ? describe : describe.skip;

mysqlOnly('presence across two instances sharing Redis', () => {
  let a: TestApp;
  let b: TestApp;
  let urls: string[];
  beforeAll(async () => {
    a = await startTestApp({ REDIS_URL: 'redis://127.0.0.1:6379' });
    b = await startTestApp({ REDIS_URL: 'redis://127.0.0.1:6379' });
    urls = [await listen(a), await listen(b)];
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('stays online while a connection remains on either instance, and the friend on the other instance hears it', async () => {
    const [alice, friend] = [await issueUser(a), await issueUser(a)];
    await new Seed(a).friends(alice.id, friend.id);
    const watcher = await connect(urls[1], { auth: { token: friend.token } });
    const first = await connect(urls[0], { auth: { token: alice.token } });
    await watcher.waitFor(() => presenceOf(watcher, alice.userId)[0], 5000, 'online');
    const second = await connect(urls[1], { auth: { token: alice.token } });
    first.close();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(presenceOf(watcher, alice.userId).map((e) => e.data.online)).toEqual([true]);
    second.close();
    await watcher.waitFor(() => presenceOf(watcher, alice.userId)[1], 5000, 'offline');
    expect(presenceOf(watcher, alice.userId).map((e) => e.data.online)).toEqual([true, false]);
    watcher.close();
  });
});
