// Two instances on one database share the queue: a send that outlasts a claim's lease (FCM's
// access token expired, so the adapter fetches a new one and sends again, each step slow) keeps
// its claim alive, and the other instance never sends the same notification meanwhile.
import { DataSource } from 'typeorm';
import { PushAdminService } from '../../src/push/push-admin.service';
import { ApiClient, friendCid } from '../helpers/api-client';
import { IsolatedDatabase, isolatedDatabase } from '../helpers/isolated-database';
import { TestApp, issueUser, startTestApp } from '../helpers/test-app';
import { FakeFcm } from './fakes/fake-fcm';
import { PushFiles, androidDevice, eventually, fcmEnv, register, settled } from './push-kit';

jest.setTimeout(120_000);

describe('push claims across two instances', () => {
  let db: IsolatedDatabase;
  let first: TestApp;
  let second: TestApp;
  let fcm: FakeFcm;
  const files = new PushFiles();

  beforeAll(async () => {
    fcm = await FakeFcm.start();
    db = await isolatedDatabase();
    const env = {
      ...db.env,
      ...(await fcmEnv(fcm, files)),
      PUSH_POLL_MS: '50',
      PUSH_TIMEOUT_MS: '2000',
      // The shortest lease the settings allow: 2 x PUSH_TIMEOUT_MS + 500.
      PUSH_LEASE_MS: '4500',
    };
    first = await startTestApp(env);
    second = await startTestApp(env);
  });

  afterAll(async () => {
    await first?.close();
    await second?.close();
    await fcm?.close();
    await db?.drop();
    files.cleanup();
  });

  it('keeps a slow send’s claim, so the notification is sent once', async () => {
    const api = new ApiClient(first);
    const [a, b] = [await issueUser(first), await issueUser(first)];
    await api.befriend(a, b);
    await settled(first);
    const token = FakeFcm.deviceToken();
    await register(first, b, androidDevice(token));
    // Warm both instances' access tokens, then make the next send need a new one, slowly:
    // a refused send, a token request and the send again, 1.8 s each, outlast the 4.5 s lease.
    await api.send(a, friendCid(b), 'warm up');
    await eventually(() => fcm.received.filter((r) => r.token === token).length === 1, 'the first notification');
    await settled(first);
    fcm.expireTokens();
    fcm.setDelay({ send: 1800, token: 1800 });
    const sent = await api.send(a, friendCid(b), 'slow');
    await eventually(() => fcm.received.some((r) => r.collapseKey === sent.event_id), 'the slow notification');
    fcm.setDelay({ send: 0, token: 0 });
    await settled(first);
    expect(fcm.received.filter((r) => r.collapseKey === sent.event_id)).toHaveLength(1);
  });
});

describe('a dedicated push worker (PUSH_DISPATCH=false on the API instance)', () => {
  let db: IsolatedDatabase;
  let api: TestApp;
  let worker: TestApp;
  let fcm: FakeFcm;
  const files = new PushFiles();

  beforeAll(async () => {
    fcm = await FakeFcm.start();
    db = await isolatedDatabase();
    const env = { ...db.env, ...(await fcmEnv(fcm, files)), PUSH_POLL_MS: '50' };
    api = await startTestApp({ ...env, PUSH_DISPATCH: 'false' });
    worker = await startTestApp(env);
  });

  afterAll(async () => {
    await api?.close();
    await worker?.close();
    await fcm?.close();
    await db?.drop();
    files.cleanup();
  });

  it('takes registrations on the API instance and leaves reading and sending to the worker', async () => {
    const client = new ApiClient(api);
    const [a, b] = [await issueUser(api), await issueUser(api)];
    await client.befriend(a, b);
    await settled(worker);
    const token = FakeFcm.deviceToken();
    await register(api, b, androidDevice(token));
    const sent = await client.send(a, friendCid(b), 'through the worker');
    await eventually(() => fcm.received.some((r) => r.collapseKey === sent.event_id), 'the notification');
    await settled(worker);
    // The API instance never read the outbox: the dispatcher's lease is the worker's alone.
    const [state] = (await api.app
      .get(DataSource)
      .query('SELECT lease_owner FROM push_dispatch WHERE id = 1')) as Array<{
      lease_owner: string | null;
    }>;
    expect(state.lease_owner).not.toBeNull();
    const status = await api.app.get(PushAdminService).status();
    expect(status.providers.find((p) => p.provider === 'fcm')).toMatchObject({ configured: true, in_flight: 0 });
    expect(fcm.received.filter((r) => r.collapseKey === sent.event_id)).toHaveLength(1);
  });
});
