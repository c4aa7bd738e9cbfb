// docs/push.md "Failures" and each provider's answers: retried until the provider accepts,
// given up as expired after PUSH_RETRY_SECONDS, failed without a retry, dead tokens removed per
// provider, a notification whose device went away meanwhile dropped, and a failing provider
// not holding up the others.
import { friendCid } from '../helpers/api-client';
import { IssuedUser } from '../helpers/test-app';
import { FakeFcm } from '../push/fakes/fake-fcm';
import { apnsToken, eventually, eventuallyEqual } from '../push/push-kit';
import {
  PushWorld,
  bootWorld,
  deliveryRows,
  deviceId,
  huaweiToken,
  metricValue,
  registerOk,
  rowsMentioning,
  settingsGet,
  settled,
  unregisterRaw,
  xiaomiRegId,
} from './review-kit';

let w: PushWorld;
const logLines: string[] = [];
/** Every device token the specs registered: none may reach a log line or a stored record. */
const tokensUsed: string[] = [];
beforeAll(async () => {
  w = await bootWorld({ env: { PUSH_RETRY_SECONDS: '4', LOG_LEVEL: 'debug' }, logLines });
});
afterAll(async () => {
  await w.close();
});

async function pair(): Promise<{ sender: IssuedUser; peer: IssuedUser }> {
  const [sender, peer] = await w.api.users(2);
  await w.api.befriend(sender, peer);
  await settled(w.t);
  return { sender, peer };
}

async function rowsOf(eventId: string): Promise<Array<Record<string, unknown>>> {
  return (await deliveryRows(w.t)).filter((r) => r.event_id === eventId);
}

async function deviceCount(user: IssuedUser): Promise<number> {
  return ((await settingsGet(w.t, user)).data as { devices: unknown[] }).devices.length;
}

describe('retry', () => {
  it('a 503 and a 429 are retried until sent, shown once, with each attempt counted', async () => {
    const { sender, peer } = await pair();
    const token = FakeFcm.deviceToken();
    await registerOk(w.t, peer, { device_id: deviceId(), provider: 'fcm', token, platform: 'android' });
    const retries = await metricValue(w.t, 'im_push_attempts_total', { provider: 'fcm', result: 'retry' });
    w.fcm!.failNext(1, { status: 503 });
    w.fcm!.failNext(1, { status: 429, errorCode: 'QUOTA_EXCEEDED', retryAfterSeconds: 1 });
    const sent = await w.api.send(sender, friendCid(peer), 'eventually');
    await settled(w.t);
    const [row] = await rowsOf(sent.event_id);
    expect({ status: row.status, attempts: Number(row.attempts), shown: w.fcm!.shown(token).length }).toEqual({
      status: 'sent',
      attempts: 3,
      shown: 1,
    });
    expect(await metricValue(w.t, 'im_push_attempts_total', { provider: 'fcm', result: 'retry' })).toBe(retries + 2);
  });

  it("the provider's Retry-After sets the next attempt (clock held still)", async () => {
    const { sender, peer } = await pair();
    const token = FakeFcm.deviceToken();
    await registerOk(w.t, peer, { device_id: deviceId(), provider: 'fcm', token, platform: 'android' });
    const now = w.t.clock.now();
    w.t.clock.set(now);
    try {
      w.fcm!.failNext(1, { status: 429, errorCode: 'QUOTA_EXCEEDED', retryAfterSeconds: 3 });
      const sent = await w.api.send(sender, friendCid(peer), 'after Retry-After');
      await eventually(
        async () => Number((await rowsOf(sent.event_id))[0]?.last_status ?? 0) === 429,
        'the first answer recorded',
      );
      const [row] = await rowsOf(sent.event_id);
      // The backoff alone would be at most PUSH_BACKOFF_MAX_MS (200 ms here).
      expect({ status: row.status, wait: Number(row.next_attempt_at) - now >= 2_900 }).toEqual({
        status: 'pending',
        wait: true,
      });
      w.t.clock.advance(3_100);
      await settled(w.t);
      expect((await rowsOf(sent.event_id))[0].status).toBe('sent');
    } finally {
      w.t.clock.release();
    }
  });

  it('a provider still failing PUSH_RETRY_SECONDS after the event is given up as expired', async () => {
    const { sender, peer } = await pair();
    const token = huaweiToken();
    await registerOk(w.t, peer, { device_id: deviceId(), provider: 'huawei', token, platform: 'android' });
    const expired = await metricValue(w.t, 'im_push_notifications_total', { provider: 'huawei', outcome: 'expired' });
    w.huawei!.setDown(true);
    try {
      const sent = await w.api.send(sender, friendCid(peer), 'too late');
      await settled(w.t);
      const [row] = await rowsOf(sent.event_id);
      expect({ status: row.status, retried: Number(row.attempts) > 1 }).toEqual({ status: 'expired', retried: true });
    } finally {
      w.huawei!.setDown(false);
    }
    await eventuallyEqual(
      () => metricValue(w.t, 'im_push_notifications_total', { provider: 'huawei', outcome: 'expired' }),
      expired + 1,
    );
    expect(w.huawei!.received.filter((r) => r.token === token)).toEqual([]);
    expect(await deviceCount(peer)).toBe(1);
  });

  it('a provider down does not hold up the others', async () => {
    const { sender, peer } = await pair();
    const fcm = FakeFcm.deviceToken();
    await registerOk(w.t, peer, { device_id: deviceId(), provider: 'fcm', token: fcm, platform: 'android' });
    await registerOk(w.t, peer, {
      device_id: deviceId(),
      provider: 'xiaomi',
      token: xiaomiRegId(),
      platform: 'android',
    });
    w.xiaomi!.setDown(true);
    try {
      await w.api.send(sender, friendCid(peer), 'fcm first');
      await eventually(() => w.fcm!.received.some((r) => r.token === fcm), 'FCM to send while Xiaomi is down', 3_500);
    } finally {
      w.xiaomi!.setDown(false);
    }
    await settled(w.t);
  });
});

describe('failed: not retried', () => {
  it('APNs BadTopic is recorded with its reason, sent once, the registration kept', async () => {
    const { sender, peer } = await pair();
    const token = apnsToken();
    tokensUsed.push(token);
    await registerOk(w.t, peer, { device_id: deviceId(), provider: 'apns', token, platform: 'ios' });
    const failed = await metricValue(w.t, 'im_push_notifications_total', { provider: 'apns', outcome: 'failed' });
    w.apns!.failNext(1, { status: 400, reason: 'BadTopic' });
    const sent = await w.api.send(sender, friendCid(peer), 'bad topic');
    await settled(w.t);
    const [row] = await rowsOf(sent.event_id);
    expect({ status: row.status, attempts: Number(row.attempts), reason: String(row.last_error) }).toEqual({
      status: 'failed',
      attempts: 1,
      reason: expect.stringContaining('BadTopic'),
    });
    await eventuallyEqual(
      () => metricValue(w.t, 'im_push_notifications_total', { provider: 'apns', outcome: 'failed' }),
      failed + 1,
    );
    expect(await deviceCount(peer)).toBe(1);
  });

  it('a Xiaomi registration of another package fails without a request', async () => {
    const { sender, peer } = await pair();
    const token = xiaomiRegId();
    await registerOk(w.t, peer, {
      device_id: deviceId(),
      provider: 'xiaomi',
      token,
      platform: 'android',
      package_name: 'com.other.app',
    });
    const sent = await w.api.send(sender, friendCid(peer), 'wrong package');
    await settled(w.t);
    const [row] = await rowsOf(sent.event_id);
    expect({ status: row.status, requests: w.xiaomi!.received.filter((r) => r.token === token).length }).toEqual({
      status: 'failed',
      requests: 0,
    });
  });
});

describe('dead tokens are removed, per provider', () => {
  const cases: Array<[string, string, () => string, (token: string) => void]> = [
    ['apns (410 Unregistered)', 'apns', apnsToken, (t) => w.apns!.addDeadToken(t)],
    [
      'apns (400 BadDeviceToken)',
      'apns',
      apnsToken,
      () => w.apns!.failNext(1, { status: 400, reason: 'BadDeviceToken' }),
    ],
    ['fcm (404 UNREGISTERED)', 'fcm', () => FakeFcm.deviceToken(), (t) => w.fcm!.markDead(t)],
    [
      'fcm (403 SENDER_ID_MISMATCH)',
      'fcm',
      () => FakeFcm.deviceToken(),
      () => w.fcm!.failNext(1, { status: 403, errorCode: 'SENDER_ID_MISMATCH' }),
    ],
    ['huawei (80300007)', 'huawei', huaweiToken, (t) => w.huawei!.addDeadToken(t)],
    ['xiaomi (20301 No valid targets)', 'xiaomi', xiaomiRegId, (t) => w.xiaomi!.addDeadToken(t)],
  ];

  it.each(cases)('%s', async (_label, provider, makeToken, kill) => {
    const { sender, peer } = await pair();
    const token = makeToken();
    tokensUsed.push(token);
    const platform = provider === 'apns' ? 'ios' : 'android';
    await registerOk(w.t, peer, { device_id: deviceId(), provider, token, platform });
    const removed = await metricValue(w.t, 'im_push_dead_tokens_removed_total', { provider });
    const dead = await metricValue(w.t, 'im_push_notifications_total', { provider, outcome: 'dead_token' });
    kill(token);
    const sent = await w.api.send(sender, friendCid(peer), 'to a removed app');
    await settled(w.t);
    await eventuallyEqual(
      async () => ({
        status: (await rowsOf(sent.event_id))[0].status,
        devices: await deviceCount(peer),
        removed: (await metricValue(w.t, 'im_push_dead_tokens_removed_total', { provider })) - removed,
        dead: (await metricValue(w.t, 'im_push_notifications_total', { provider, outcome: 'dead_token' })) - dead,
        tokenStored: await rowsMentioning(w.t, ['push_deliveries'], token),
      }),
      { status: 'dead_token', devices: 0, removed: 1, dead: 1, tokenStored: [] },
    );
  });
});

describe('dropped: the device went away meanwhile', () => {
  it('unregistered while its notification waits for a retry: dropped, never sent', async () => {
    const { sender, peer } = await pair();
    const token = FakeFcm.deviceToken();
    const id = deviceId();
    await registerOk(w.t, peer, { device_id: id, provider: 'fcm', token, platform: 'android' });
    const dropped = await metricValue(w.t, 'im_push_notifications_total', { provider: 'fcm', outcome: 'dropped' });
    w.fcm!.failNext(3, { status: 503 });
    const sent = await w.api.send(sender, friendCid(peer), 'gone meanwhile');
    await eventually(async () => Number((await rowsOf(sent.event_id))[0]?.attempts ?? 0) >= 1, 'a first attempt');
    expect((await unregisterRaw(w.t, peer, { device_id: id })).data).toEqual({ removed: 1 });
    await settled(w.t);
    await eventuallyEqual(
      async () => ({
        status: (await rowsOf(sent.event_id)).map((r) => r.status),
        received: w.fcm!.received.filter((r) => r.token === token).length,
        dropped:
          (await metricValue(w.t, 'im_push_notifications_total', { provider: 'fcm', outcome: 'dropped' })) - dropped,
      }),
      { status: ['dropped'], received: 0, dropped: 1 },
    );
  });

  it("a token moved to another user meanwhile: the old owner's notification is dropped", async () => {
    const { sender, peer } = await pair();
    const other = await w.api.user();
    const token = FakeFcm.deviceToken();
    await registerOk(w.t, peer, { device_id: deviceId(), provider: 'fcm', token, platform: 'android' });
    w.fcm!.failNext(3, { status: 503 });
    const sent = await w.api.send(sender, friendCid(peer), 'for the old owner');
    await eventually(async () => Number((await rowsOf(sent.event_id))[0]?.attempts ?? 0) >= 1, 'a first attempt');
    await registerOk(w.t, other, { device_id: deviceId(), provider: 'fcm', token, platform: 'android' });
    await settled(w.t);
    expect({
      status: (await rowsOf(sent.event_id)).map((r) => r.status),
      received: w.fcm!.received.filter((r) => r.token === token).length,
    }).toEqual({ status: ['dropped'], received: 0 });
  });
});

// Runs last: the specs above made every kind of answer (retry, failed, dead token) happen.
it('no device token of the specs above reached a log line (debug level)', () => {
  const leaks = tokensUsed.filter((token) => logLines.some((line) => line.includes(token)));
  expect({ lines: logLines.length > 0, tokens: tokensUsed.length > 0, leaks }).toEqual({
    lines: true,
    tokens: true,
    leaks: [],
  });
});
