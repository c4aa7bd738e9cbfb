// docs/push.md "Operating it" and docs/admin.md "Push": the console API (status for every role,
// the test send for owners only, audited) and the metric names and labels the doc lists.
import { friendCid } from '../helpers/api-client';
import { AdminSession, adminSession } from '../helpers/admin-client';
import { connect, listen } from '../helpers/realtime';
import { FakeFcm } from '../push/fakes/fake-fcm';
import { apnsToken, eventually } from '../push/push-kit';
import { PushWorld, bootWorld, deviceId, metricSamples, registerOk, settled, xiaomiRegId } from './review-kit';

let w: PushWorld;
let owner: AdminSession;
beforeAll(async () => {
  w = await bootWorld({ providers: ['apns', 'fcm', 'xiaomi'], env: { PUSH_PREVIEW_DEFAULT: 'sender' } });
  owner = await adminSession(w.t, 'owner');
});
afterAll(async () => {
  await w.close();
});

interface ProviderRow {
  provider: string;
  serves: string[];
  configured: boolean;
  concurrency: number;
  in_flight: number;
  pending: number;
  last_success_at: number | null;
  last_failure_at: number | null;
  last_failure: string | null;
  registrations: number;
}

async function status(
  session: AdminSession,
): Promise<{ providers: ProviderRow[]; preview_default: string; lag_events: number }> {
  const response = await session.get('/app/admin/push/status');
  expect({ status: response.status, code: response.body.code }).toEqual({ status: 200, code: 0 });
  return response.body.data;
}

describe('GET /app/admin/push/status', () => {
  it('lists every provider, configured or not, with what it serves', async () => {
    const data = await status(owner);
    const rows = Object.fromEntries(data.providers.map((p) => [p.provider, p]));
    expect({
      providers: Object.keys(rows).sort(),
      apns: [rows.apns?.configured, [...(rows.apns?.serves ?? [])].sort()],
      fcm: [rows.fcm?.configured, rows.fcm?.concurrency],
      huawei: rows.huawei?.configured,
      xiaomi: rows.xiaomi?.configured,
      preview_default: data.preview_default,
      lag: typeof data.lag_events,
    }).toEqual({
      providers: ['apns', 'fcm', 'huawei', 'xiaomi'],
      apns: [true, ['apns', 'apns_voip']],
      fcm: [true, 16],
      huawei: false,
      xiaomi: true,
      preview_default: 'sender',
      lag: 'number',
    });
  });

  it('counts registrations and shows the last success and the last failure without a token', async () => {
    const [sender, peer] = await w.api.users(2);
    await w.api.befriend(sender, peer);
    const token = FakeFcm.deviceToken();
    await registerOk(w.t, peer, { device_id: deviceId(), provider: 'fcm', token, platform: 'android' });
    const before = (await status(owner)).providers.find((p) => p.provider === 'fcm')!;
    w.fcm!.failNext(1, {
      status: 400,
      errorCode: 'INVALID_ARGUMENT',
      message: 'Request contains an invalid argument.',
    });
    await w.api.send(sender, friendCid(peer), 'fails');
    await settled(w.t);
    await w.api.send(sender, friendCid(peer), 'succeeds');
    await settled(w.t);
    const fcm = (await status(owner)).providers.find((p) => p.provider === 'fcm')!;
    expect({
      registrations: fcm.registrations >= 1,
      pending: fcm.pending,
      success: fcm.last_success_at !== null,
      failure: fcm.last_failure_at !== null && fcm.last_failure !== null,
      tokenShown: JSON.stringify(fcm).includes(token),
      changed: fcm.last_failure_at !== before.last_failure_at,
    }).toEqual({ registrations: true, pending: 0, success: true, failure: true, tokenShown: false, changed: true });
    expect((await status(owner)).lag_events).toBe(0);
  });

  it('answers keeping_dead_tokens for each provider, as the contract and the OpenAPI document say', async () => {
    const data = await status(owner);
    const doc = (await w.t.http.get('/openapi.json')).body as {
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    expect({
      field: data.providers.map((p) => typeof (p as unknown as Record<string, unknown>).keeping_dead_tokens),
      documented: 'keeping_dead_tokens' in doc.components.schemas.PushProviderStatusReplyDto.properties,
    }).toEqual({ field: ['boolean', 'boolean', 'boolean', 'boolean'], documented: true });
  });

  it('lag_events is 0 without a configured provider', async () => {
    const bare = await bootWorld({ providers: [] });
    try {
      const [a, b] = await bare.api.users(2);
      await bare.api.befriend(a, b);
      await bare.api.send(a, friendCid(b), 'nobody pushes this');
      const session = await adminSession(bare.t, 'viewer');
      const response = await session.get('/app/admin/push/status');
      expect({ code: response.body.code, lag: response.body.data?.lag_events }).toEqual({ code: 0, lag: 0 });
    } finally {
      await bare.close();
    }
  });

  it('is open to viewers and moderators; not without a session', async () => {
    for (const role of ['viewer', 'moderator'] as const) {
      const session = await adminSession(w.t, role);
      expect((await status(session)).providers.length).toBe(4);
    }
    const anonymous = await w.t.http.get('/app/admin/push/status');
    expect(anonymous.status).toBe(401);
  });
});

describe('POST /app/admin/push/test', () => {
  it("sends to every device of the user past presence and quiet hours, with each device's outcome", async () => {
    const user = await w.api.user();
    const fcm = FakeFcm.deviceToken();
    const apns = apnsToken();
    const dead = xiaomiRegId();
    await registerOk(w.t, user, { device_id: 'pixel', provider: 'fcm', token: fcm, platform: 'android' });
    await registerOk(w.t, user, { device_id: 'iphone', provider: 'apns', token: apns, platform: 'ios' });
    await registerOk(w.t, user, { device_id: 'mi', provider: 'xiaomi', token: dead, platform: 'android' });
    await w.t.http
      .post('/app/sdk/push/settings')
      .set('Authorization', `Bearer ${user.token}`)
      .send({ preview: null, quiet_hours: { start: '00:00', end: '00:00', timezone: 'UTC' } });
    w.xiaomi!.addDeadToken(dead);
    const response = await owner.post('/app/admin/push/test', { user_id: user.userId });
    expect({ status: response.status, code: response.body.code }).toEqual({ status: 200, code: 0 });
    const outcomes = Object.fromEntries(
      (response.body.data.devices as Array<{ device_id: string; outcome: string }>).map((d) => [
        d.device_id,
        d.outcome,
      ]),
    );
    expect(outcomes).toEqual({ pixel: 'sent', iphone: 'sent', mi: 'dead_token' });
    const shown = w.fcm!.shown(fcm);
    expect({ body: shown[0]?.body, type: shown[0]?.data.type }).toEqual({ body: 'Test notification', type: 'test' });
    expect(w.apns!.received.filter((r) => r.token === apns).map((r) => r.payload.type)).toEqual(['test']);
    const devices = await w.t.http.get('/app/sdk/push/settings').set('Authorization', `Bearer ${user.token}`);
    expect((devices.body.data.devices as Array<{ device_id: string }>).map((d) => d.device_id).sort()).toEqual([
      'iphone',
      'pixel',
    ]);
  });

  it('shows the given text; refuses a text over 120 characters and an unknown user (1204)', async () => {
    const user = await w.api.user();
    const token = FakeFcm.deviceToken();
    await registerOk(w.t, user, { device_id: deviceId(), provider: 'fcm', token, platform: 'android' });
    const ok = await owner.post('/app/admin/push/test', { user_id: user.userId, text: 'Hello 😀' });
    expect(ok.body.code).toBe(0);
    expect(w.fcm!.shown(token).map((s) => s.body)).toEqual(['Hello 😀']);
    const long = await owner.post('/app/admin/push/test', { user_id: user.userId, text: 'x'.repeat(121) });
    expect({ code: long.body.code, named: String(long.body.msg).includes('text') }).toEqual({
      code: 1004,
      named: true,
    });
    const emoji = await owner.post('/app/admin/push/test', { user_id: user.userId, text: '😀'.repeat(120) });
    expect(emoji.body.code).toBe(0);
    const unknown = await owner.post('/app/admin/push/test', { user_id: 'nobody-here-at-all' });
    expect(unknown.body.code).toBe(1204);
  });

  it('reaches a user who is online; a user with no device gets an empty list', async () => {
    const user = await w.api.user();
    const token = FakeFcm.deviceToken();
    await registerOk(w.t, user, { device_id: 'pixel', provider: 'fcm', token, platform: 'android' });
    const socket = await connect(await listen(w.t), { auth: { token: user.token } });
    try {
      const online = await owner.post('/app/admin/push/test', { user_id: user.userId });
      expect(online.body.data).toEqual({
        devices: [{ device_id: 'pixel', provider: 'fcm', outcome: 'sent', status: 200, reason: null }],
      });
    } finally {
      socket.close();
    }
    const nobody = await w.api.user();
    const empty = await owner.post('/app/admin/push/test', { user_id: nobody.userId });
    expect({ code: empty.body.code, data: empty.body.data }).toEqual({ code: 0, data: { devices: [] } });
  });

  it('counts what waits for a provider that is down as pending', async () => {
    const [sender, peer] = await w.api.users(2);
    await w.api.befriend(sender, peer);
    await settled(w.t);
    await registerOk(w.t, peer, {
      device_id: deviceId(),
      provider: 'xiaomi',
      token: xiaomiRegId(),
      platform: 'android',
    });
    w.xiaomi!.setDown(true);
    try {
      await w.api.send(sender, friendCid(peer), 'waits');
      let pending = 0;
      await eventually(async () => {
        pending = (await status(owner)).providers.find((p) => p.provider === 'xiaomi')!.pending;
        return pending > 0;
      }, 'the console to show a pending notification');
      expect(pending).toBe(1);
    } finally {
      w.xiaomi!.setDown(false);
    }
    await settled(w.t);
    expect((await status(owner)).providers.find((p) => p.provider === 'xiaomi')!.pending).toBe(0);
  });

  it('refuses viewers and moderators with HTTP 403, and is audited as push.test', async () => {
    const user = await w.api.user();
    for (const role of ['viewer', 'moderator'] as const) {
      const session = await adminSession(w.t, role);
      const response = await session.post('/app/admin/push/test', { user_id: user.userId });
      expect({ role, status: response.status, code: response.body.code }).toEqual({ role, status: 403, code: 1004 });
    }
    await owner.post('/app/admin/push/test', { user_id: user.userId });
    const audit = await owner.get('/app/admin/audit', { action: 'push.test' });
    expect(audit.body.code).toBe(0);
    const rows = audit.body.data.items as Array<{ action: string; target_type: string; target_id: string }>;
    expect(rows.filter((r) => r.target_type === 'user' && r.target_id === user.id).map((r) => r.action)).toEqual([
      'push.test',
    ]);
  });
});

describe('metrics', () => {
  it('the names and labels docs/push.md lists', async () => {
    const [sender, peer] = await w.api.users(2);
    await w.api.befriend(sender, peer);
    await registerOk(w.t, peer, {
      device_id: deviceId(),
      provider: 'fcm',
      token: FakeFcm.deviceToken(),
      platform: 'android',
    });
    await w.api.send(sender, friendCid(peer), 'for the metrics');
    await settled(w.t);
    // The worker counts a sent notification once its record is final, a moment after it.
    await eventually(
      async () => (await metricSamples(w.t, 'im_push_notifications_total')).some((s) => s.labels.outcome === 'sent'),
      'the sent notification to be counted',
    );
    const expected: Record<string, string[]> = {
      im_push_notifications_total: ['outcome', 'provider'],
      im_push_attempts_total: ['provider', 'result'],
      im_push_send_seconds: ['provider'],
      im_push_delay_seconds: ['provider'],
      im_push_in_flight: ['provider'],
      im_push_lag_events: [],
    };
    const seen: Record<string, string[]> = {};
    for (const name of Object.keys(expected)) {
      const samples = await metricSamples(w.t, name);
      const labels = new Set<string>();
      for (const sample of samples)
        for (const label of Object.keys(sample.labels)) if (label !== 'le' && label !== 'quantile') labels.add(label);
      seen[name] = samples.length ? [...labels].sort() : ['(no samples)'];
    }
    expect(seen).toEqual(expected);
    const text = await w.t.app
      .get((await import('../../src/metrics/metrics.service')).MetricsService)
      .registry.metrics();
    for (const name of ['im_push_dead_tokens_removed_total', 'im_push_skipped_total'])
      expect(text).toContain(`# TYPE ${name}`);
    const outcome = (await metricSamples(w.t, 'im_push_notifications_total')).map((s) => s.labels.outcome);
    expect(outcome).toContain('sent');
  });
});
