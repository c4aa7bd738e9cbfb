// Offline push through every provider at once, each against its fake: APNs (alerts, and VoIP for
// calls), FCM, Huawei (Android through v1, HarmonyOS through v3) and Xiaomi. A provider that is
// down is retried and then given up with a metric, while the others go on undelayed.
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { MetricsService } from '../../src/metrics/metrics.service';
import { ApiClient, friendCid } from '../helpers/api-client';
import { IsolatedDatabase, isolatedDatabase } from '../helpers/isolated-database';
import { IssuedUser, TestApp, bearer, issueUser, okData, startTestApp } from '../helpers/test-app';
import { CallsApi } from '../calls/call-helpers';
import { FakeApns } from './fakes/fake-apns';
import { FakeFcm } from './fakes/fake-fcm';
import { FakeHuawei } from './fakes/fake-huawei';
import { FakeXiaomi } from './fakes/fake-xiaomi';
import {
  FAST_PUSH,
  PushFiles,
  androidDevice,
  apnsFake,
  apnsToken,
  eventually,
  eventuallyEqual,
  fcmEnv,
  huaweiFake,
  iosDevice,
  register,
  settled,
  xiaomiFake,
} from './push-kit';

jest.setTimeout(120_000);

const hex = (n: number): string => randomBytes(n).toString('hex');

describe('offline push through APNs, FCM, Huawei and Xiaomi', () => {
  let db: IsolatedDatabase;
  let t: TestApp;
  let api: ApiClient;
  let calls: CallsApi;
  let apns: FakeApns;
  let fcm: FakeFcm;
  let huawei: FakeHuawei;
  let xiaomi: FakeXiaomi;
  const files = new PushFiles();

  beforeAll(async () => {
    fcm = await FakeFcm.start();
    const a = await apnsFake(files);
    const h = await huaweiFake(files);
    const x = await xiaomiFake(files);
    [apns, huawei, xiaomi] = [a.apns, h.huawei, x.xiaomi];
    db = await isolatedDatabase();
    t = await startTestApp({
      ...db.env,
      ...FAST_PUSH,
      // A notification still failing 3 s after its event is given up.
      PUSH_RETRY_SECONDS: '3',
      ...(await fcmEnv(fcm, files)),
      ...a.env,
      ...h.env,
      ...x.env,
    });
    api = new ApiClient(t);
    calls = new CallsApi(t);
  });

  afterAll(async () => {
    await t?.close();
    await Promise.all([apns?.close(), fcm?.close(), huawei?.close(), xiaomi?.close()]);
    await db?.drop();
    files.cleanup();
  });

  interface Phones {
    user: IssuedUser;
    iphone: { device_id: string; alert: string; voip: string };
    huaweiToken: string;
    harmonyToken: string;
    xiaomiToken: string;
  }

  /** A user with an iPhone (alert and VoIP tokens), a Huawei Android phone, a HarmonyOS phone and a Xiaomi phone. */
  async function phones(user: IssuedUser): Promise<Phones> {
    const iphone = { device_id: `iphone-${hex(3)}`, alert: apnsToken(), voip: apnsToken() };
    await register(t, user, iosDevice('apns', iphone.device_id, iphone.alert));
    await register(t, user, iosDevice('apns_voip', iphone.device_id, iphone.voip));
    const [huaweiToken, harmonyToken, xiaomiToken] = [`IQAAAACy${hex(40)}`, `MAMzLg${hex(40)}`, `${hex(20)}/+=`];
    await register(t, user, {
      device_id: `mate-${hex(3)}`,
      provider: 'huawei',
      token: huaweiToken,
      platform: 'android',
    });
    await register(t, user, {
      device_id: `nova-${hex(3)}`,
      provider: 'huawei',
      token: harmonyToken,
      platform: 'harmony',
    });
    await register(t, user, {
      device_id: `mi-${hex(3)}`,
      provider: 'xiaomi',
      token: xiaomiToken,
      platform: 'android',
      package_name: 'com.example.chat',
    });
    return { user, iphone, huaweiToken, harmonyToken, xiaomiToken };
  }

  it('shapes a message for each provider, with the event as collapse key, and never as a VoIP push', async () => {
    const [a, b] = [await issueUser(t), await issueUser(t)];
    await api.befriend(a, b);
    await settled(t);
    const p = await phones(b);
    const sent = await api.send(a, friendCid(b), 'ship it');
    await eventually(
      () =>
        apns.shown(p.iphone.alert).length === 1 &&
        huawei.shown(p.huaweiToken).length === 1 &&
        huawei.shown(p.harmonyToken).length === 1 &&
        xiaomi.shown(p.xiaomiToken).length === 1,
      'a notification on every phone',
    );
    await settled(t);
    const [alert] = apns.received.filter((r) => r.token === p.iphone.alert);
    expect(alert).toMatchObject({
      topic: 'com.example.chat',
      pushType: 'alert',
      priority: 10,
      collapseKey: sent.event_id,
    });
    expect(alert.payload).toMatchObject({
      aps: { alert: { body: 'ship it' }, badge: 1, 'thread-id': friendCid(a) },
      type: 'message',
      event_id: sent.event_id,
      conversation_id: friendCid(a),
    });
    expect(apns.received.filter((r) => r.token === p.iphone.voip)).toEqual([]);
    expect(huawei.shown(p.huaweiToken)[0]).toMatchObject({ api: 'v1', body: 'ship it', collapseKey: sent.event_id });
    expect(huawei.shown(p.huaweiToken)[0].data).toMatchObject({
      event_id: sent.event_id,
      conversation_id: friendCid(a),
    });
    expect(huawei.shown(p.harmonyToken)[0]).toMatchObject({ api: 'v3', body: 'ship it' });
    expect(xiaomi.shown(p.xiaomiToken)[0]).toMatchObject({ description: 'ship it' });
    expect(xiaomi.shown(p.xiaomiToken)[0].payload).toMatchObject({ event_id: sent.event_id });
  });

  it('rings a call through the VoIP token at high priority, and the vendors as calls', async () => {
    const [a, b] = [await issueUser(t), await issueUser(t)];
    await api.befriend(a, b);
    await settled(t);
    const p = await phones(b);
    const started = await calls.start(a, friendCid(b), { media: 'video' });
    await eventually(
      () => apns.received.some((r) => r.token === p.iphone.voip) && huawei.shown(p.huaweiToken).length === 1,
      'the call on the iPhone and the Huawei phone',
    );
    await settled(t);
    const [voip] = apns.received.filter((r) => r.token === p.iphone.voip);
    expect(voip).toMatchObject({ topic: 'com.example.chat.voip', pushType: 'voip', priority: 10 });
    expect(voip.payload).toMatchObject({ type: 'call', call_id: started.call.call_id, media: 'video' });
    // The iPhone rings once, through PushKit: no alert on its ordinary token.
    expect(apns.received.filter((r) => r.token === p.iphone.alert)).toEqual([]);
    expect(huawei.received.find((r) => r.token === p.huaweiToken)).toMatchObject({
      priority: 'HIGH',
      category: 'VOIP',
    });
  });

  it('retries a provider that is down, gives up at the deadline with a metric, and the others are not held up', async () => {
    const [a, b] = [await issueUser(t), await issueUser(t)];
    await api.befriend(a, b);
    await settled(t);
    const fcmToken = FakeFcm.deviceToken();
    await register(t, b, androidDevice(fcmToken));
    const iphone = apnsToken();
    await register(t, b, iosDevice('apns', `iphone-${hex(3)}`, iphone));
    fcm.setDown(true);
    try {
      const before = fcm.answered.filter((x) => x.status === 503).length;
      const sent = await api.send(a, friendCid(b), 'anyone there?');
      await eventually(() => apns.shown(iphone).length === 1, 'the APNs notification while FCM is down');
      await eventually(async () => {
        const [row] = (await t.app
          .get(DataSource)
          .query('SELECT status, attempts FROM push_deliveries WHERE event_id = ? AND provider = ?', [
            sent.event_id,
            'fcm',
          ])) as Array<{ status: string; attempts: number }>;
        return row?.status === 'expired';
      }, 'the FCM notification to be given up');
      expect(fcm.answered.filter((x) => x.status === 503).length - before).toBeGreaterThanOrEqual(2);
      // The worker counts a notification once its record is final, a moment after it.
      await eventuallyEqual(
        () => t.app.get(MetricsService).registry.metrics(),
        expect.stringMatching(/im_push_notifications_total\{provider="fcm",outcome="expired"\} [1-9]/),
      );
      const metrics = await t.app.get(MetricsService).registry.metrics();
      expect(metrics).toMatch(/im_push_attempts_total\{provider="fcm",result="retry"\} [1-9]/);
      // The payload (its preview) is not kept once the record is final.
      const [row] = (await t.app
        .get(DataSource)
        .query('SELECT payload FROM push_deliveries WHERE event_id = ? AND provider = ?', [
          sent.event_id,
          'fcm',
        ])) as Array<{
        payload: string | null;
      }>;
      expect(row.payload).toBeNull();
    } finally {
      fcm.setDown(false);
    }
  });

  it('lists each provider in the console status, and a test send reaches every device', async () => {
    const user = await issueUser(t);
    const p = await phones(user);
    const { adminSession } = await import('../helpers/admin-client');
    const owner = await adminSession(t, 'owner');
    const status = okData<{ providers: Array<{ provider: string; configured: boolean; registrations: number }> }>(
      await owner.get('/app/admin/push/status'),
    );
    expect(status.providers.map((x) => [x.provider, x.configured])).toEqual([
      ['apns', true],
      ['fcm', true],
      ['huawei', true],
      ['xiaomi', true],
    ]);
    const tested = okData<{ devices: Array<{ provider: string; outcome: string }> }>(
      await owner.post('/app/admin/push/test', { user_id: user.userId, text: 'hello from the console' }),
    );
    expect(tested.devices.map((d) => d.outcome)).toEqual(['sent', 'sent', 'sent', 'sent', 'sent']);
    expect(apns.received.some((r) => r.token === p.iphone.voip)).toBe(true);
    expect(xiaomi.shown(p.xiaomiToken).at(-1)).toMatchObject({ description: 'hello from the console' });
    const viewer = await adminSession(t, 'viewer');
    const refused = await viewer.post('/app/admin/push/test', { user_id: user.userId });
    expect(refused.status).toBe(403);
  });

  it('settings list the devices a user registered', async () => {
    const user = await issueUser(t);
    await phones(user);
    const settings = okData<{ devices: Array<{ provider: string; platform: string }> }>(
      await t.http.get('/app/sdk/push/settings').set(...bearer(user.token)),
    );
    expect(settings.devices.map((d) => `${d.provider}/${d.platform}`).sort()).toEqual([
      'apns/ios',
      'apns_voip/ios',
      'huawei/android',
      'huawei/harmony',
      'xiaomi/android',
    ]);
  });
});
