// REDIS_KEY_PREFIX (docs/configuration.md): two deployments on one Redis, each with its own
// database and so with users numbered alike, keep apart — presence, the socket census, rate-limit
// windows — when their prefixes differ; every key they write starts with their prefix.
import Redis from 'ioredis';
import { AdminSession, adminSession } from '../helpers/admin-client';
import { expectOk } from '../helpers/assertions';
import { clientErrorBody } from '../helpers/factories';
import { IsolatedDatabase, isolatedDatabase } from '../helpers/isolated-database';
import { RtClient, connect, listen } from '../helpers/realtime';
import { IssuedUser, TestApp, issueUser, startTestApp } from '../helpers/test-app';

jest.setTimeout(120_000);

interface Dashboard {
  connected_instances: number;
  connected_sockets: number;
  connected_sockets_complete: boolean;
}

const redisUrl = process.env.TEST_REDIS_URL;

(redisUrl ? describe : describe.skip)('two deployments on one Redis, each with its prefix (TEST_REDIS_URL)', () => {
  const databases: IsolatedDatabase[] = [];
  const apps: TestApp[] = [];
  const clients: RtClient[] = [];
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis(redisUrl!);
    for (let i = 0; i < 2; i += 1) databases.push(await isolatedDatabase());
    for (const database of databases)
      apps.push(await startTestApp({ ...database.env, REDIS_URL: redisUrl!, RATE_LIMITS: 'client_error=2/60s' }));
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    for (const app of apps.reverse()) await app.close();
    for (const database of databases) await database.drop();
    redis.disconnect();
  });

  it('gives the databases different prefixes', () => {
    const [a, b] = databases.map((d) => d.env.REDIS_KEY_PREFIX);
    expect(a).toMatch(/^e2e-[0-9a-f]{12}:$/);
    expect(b).not.toBe(a);
  });

  it('keeps presence, the census and rate limits apart, though the users have the same internal ID', async () => {
    const [a, b] = apps;
    // Each database's first user: the same internal ID in both deployments.
    const first: IssuedUser[] = [await issueUser(a), await issueUser(b)];
    expect(first[0].id).toBe(first[1].id);
    const viewers: AdminSession[] = [await adminSession(a, 'viewer'), await adminSession(b, 'viewer')];
    clients.push(await connect(await listen(a), { auth: { token: first[0].token } }));

    const dashboards = await Promise.all(
      viewers.map(async (viewer) => expectOk<Dashboard>(await viewer.get('/app/admin/dashboard'))),
    );
    expect(
      dashboards.map((d) => ({
        instances: d.connected_instances,
        sockets: d.connected_sockets,
        complete: d.connected_sockets_complete,
      })),
    ).toEqual([
      { instances: 1, sockets: 1, complete: true },
      { instances: 1, sockets: 0, complete: true },
    ]);
    const presence = async (viewer: AdminSession, user: IssuedUser) =>
      expectOk<{ presence: { online: boolean; connections: number } }>(
        await viewer.get('/app/admin/users/overview', { user_id: user.userId }),
      ).presence;
    expect(await presence(viewers[0], first[0])).toMatchObject({ online: true, connections: 1 });
    expect(await presence(viewers[1], first[1])).toMatchObject({ online: false, connections: 0 });

    // client_error=2/60s per user: each deployment's user has its own window, though both clocks
    // are held at one instant (so the windows' keys would be the same without the prefixes).
    const now = a.clock.now();
    for (const app of apps) app.clock.set(now);
    try {
      const codes: number[][] = [[], []];
      for (const [i, app] of apps.entries())
        for (let n = 0; n < 3; n += 1) {
          const response = await app.http
            .post('/app/sdk/client-errors')
            .set('Authorization', `Bearer ${first[i].token}`)
            .send(clientErrorBody(first[i]));
          codes[i].push(response.body.code as number);
        }
      expect(codes).toEqual([
        [0, 0, 1005],
        [0, 0, 1005],
      ]);
    } finally {
      for (const app of apps) app.clock.release();
    }

    for (const database of databases) {
      const keys = await redis.keys(`${database.env.REDIS_KEY_PREFIX}*`);
      expect(keys.some((key) => key.startsWith(`${database.env.REDIS_KEY_PREFIX}rl:client_error:`))).toBe(true);
    }
    const presenceKeys = await redis.keys(`${databases[0].env.REDIS_KEY_PREFIX}presence:*`);
    expect(presenceKeys.length).toBeGreaterThan(0);
  });
});
