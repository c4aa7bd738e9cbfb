// The dashboard's connected-socket count: this instance's connections, and with Redis those
// of every other instance that answers the census in time.
import { isolatedDatabase } from '../helpers/isolated-database';
import { connect, listen } from '../helpers/realtime';
import { TestApp, issueUser, startTestApp } from '../helpers/test-app';
import { expectOk } from '../helpers/assertions';
import { adminSession } from '../helpers/admin-client';

type Dashboard = { connected_sockets: number; connected_instances: number; connected_sockets_complete: boolean };

describe('admin dashboard: connected sockets', () => {
  it('counts the connections of this instance (no Redis: it is the only one)', async () => {
    const t = await startTestApp();
    try {
      const viewer = await adminSession(t, 'viewer');
      const before = expectOk<Dashboard>(await viewer.get('/app/admin/dashboard'));
      expect(before).toMatchObject({ connected_sockets: 0, connected_instances: 1, connected_sockets_complete: true });
      const user = await issueUser(t);
      const url = await listen(t);
      const clients = [
        await connect(url, { auth: { token: user.token } }),
        await connect(url, { auth: { token: user.token } }),
      ];
      try {
        expect(expectOk<Dashboard>(await viewer.get('/app/admin/dashboard')).connected_sockets).toBe(2);
        // The user's detail shows them online while a socket is open.
        const detail = expectOk<{ online: boolean | null; last_seen_at: number | null }>(
          await viewer.get('/app/admin/users/detail', { user_id: user.userId }),
        );
        expect(detail).toMatchObject({ online: true, last_seen_at: null });
      } finally {
        for (const client of clients) client.close();
      }
    } finally {
      await t.close();
    }
  });

  const redisUrl = process.env.TEST_REDIS_URL;
  (redisUrl ? it : it.skip)('adds the answers of the other instances over Redis (TEST_REDIS_URL)', async () => {
    const apps: TestApp[] = [];
    // One database for both instances (on SQLite each test app otherwise has a file of its own).
    const database = await isolatedDatabase();
    try {
      apps.push(await startTestApp({ ...database.env, REDIS_URL: redisUrl! }));
      apps.push(await startTestApp({ ...database.env, MIGRATIONS_RUN: 'false', REDIS_URL: redisUrl! }));
      const [a, b] = apps;
      const viewer = await adminSession(a, 'viewer');
      const user = await issueUser(a);
      const client = await connect(await listen(b), { auth: { token: user.token } });
      try {
        // The isolated database's Redis prefix: other spec files' instances on the same Redis are not asked.
        const seen = expectOk<Dashboard>(await viewer.get('/app/admin/dashboard'));
        expect({
          instances: seen.connected_instances,
          sockets: seen.connected_sockets,
          complete: seen.connected_sockets_complete,
        }).toEqual({ instances: 2, sockets: 1, complete: true });
      } finally {
        client.close();
      }
    } finally {
      for (const app of apps.reverse()) await app.close();
      await database.drop();
    }
  });
});
