import type { PushDevice, PushNotification, PushResult } from '../../../src/push/providers/push-provider';
import type { XiaomiConfig } from '../../../src/config/push/xiaomi-config';
import { XiaomiProvider, type XiaomiProviderOptions } from '../../../src/push/providers/xiaomi/xiaomi-provider';
import { xiaomiNotifyId } from '../../../src/push/providers/xiaomi/xiaomi-request';
import { FakeXiaomi } from '../fakes/fake-xiaomi';

/** The Xiaomi adapter against a fake Mi Push speaking the v3 regid protocol. */
describe('Xiaomi Mi Push adapter', () => {
  const SECRET = 'xm-app-secret-5Q2v8bZ1==';
  const PACKAGE = 'com.example.chat';
  let fake: FakeXiaomi;
  const providers: XiaomiProvider[] = [];

  beforeEach(async () => {
    fake = await FakeXiaomi.start({ appSecret: SECRET, packageName: PACKAGE });
  });

  afterEach(async () => {
    await Promise.all(providers.splice(0).map((provider) => provider.close()));
    await fake.close();
  });

  function provider(overrides: Partial<XiaomiConfig> = {}, options: XiaomiProviderOptions = {}): XiaomiProvider {
    const created = new XiaomiProvider(
      {
        appSecret: SECRET,
        packageName: PACKAGE,
        url: fake.url,
        channelId: null,
        caPem: fake.caPem,
        secrets: [SECRET],
        ...overrides,
      },
      { timeoutMs: 5000, ...options },
    );
    providers.push(created);
    return created;
  }

  let counter = 0;
  function device(packageName: string | null = PACKAGE): PushDevice {
    counter += 1;
    return { provider: 'xiaomi', token: `dGhpcyBpcyBhIHJlZ2lk/${counter}+XiaomiRegId`, packageName };
  }

  function notification(overrides: Partial<PushNotification> = {}): PushNotification {
    return {
      eventId: `evt-${Math.random().toString(36).slice(2)}`,
      kind: 'message',
      priority: 'normal',
      title: 'Bob',
      body: '周末一起去爬山吗？',
      badge: 2,
      threadId: 'conv-3',
      data: { conversation_id: 'conv-3', type: 'message' },
      expiresAt: Date.now() + 600_000,
      ...overrides,
    };
  }

  function expectSecretFree(result: PushResult, ...secrets: string[]): void {
    for (const secret of secrets) expect(JSON.stringify(result)).not.toContain(secret);
  }

  it('sends a notification message shaped as Mi Push expects', async () => {
    const target = device();
    const sent = notification();
    const result = await provider({ channelId: 'im_private' }).send(target, sent);
    expect(result).toMatchObject({ outcome: 'sent', status: 200 });
    expect(result.outcome === 'sent' && result.providerId).toMatch(/^scm/);
    expect(fake.received).toHaveLength(1);
    const received = fake.received[0];
    expect(received).toMatchObject({
      token: target.token,
      collapseKey: xiaomiNotifyId(sent.eventId),
      title: 'Bob',
      description: '周末一起去爬山吗？',
      payload: { conversation_id: 'conv-3', type: 'message' },
      channelId: 'im_private',
    });
    expect(received.form).toMatchObject({
      restricted_package_name: PACKAGE,
      pass_through: '0',
      notify_type: '-1',
      'extra.notify_foreground': '1',
      'extra.notify_effect': '1',
    });
    expect(received.timeToLiveMs).toBeGreaterThan(590_000);
    expect(received.timeToLiveMs).toBeLessThanOrEqual(600_000);
    expect(received.headers['authorization']).toBe(`key=${SECRET}`);
  });

  it('shows a re-sent event once: the notify_id replaces it on the device', async () => {
    const adapter = provider();
    const target = device();
    const first = notification();
    await adapter.send(target, first);
    await adapter.send(target, { ...first, body: 'resent after a crash' });
    await adapter.send(target, notification({ body: 'another event' }));
    expect(fake.received).toHaveLength(3);
    expect(fake.shown(target.token).map((n) => n.description)).toEqual(['resent after a crash', 'another event']);
  });

  it('sends a registration without a package name under the configured one', async () => {
    expect((await provider().send(device(null), notification())).outcome).toBe('sent');
    expect(fake.received[0].form.restricted_package_name).toBe(PACKAGE);
  });

  it('answers failed without a request when the registration names another package', async () => {
    const result = await provider().send(device('com.other.app'), notification());
    expect(result).toMatchObject({ outcome: 'failed', status: null });
    expect(fake.received).toHaveLength(0);
  });

  it('answers failed, without the secret, when Xiaomi refuses the AppSecret (21301)', async () => {
    const wrong = 'not-the-app-secret';
    const result = await provider({ appSecret: wrong }).send(device(), notification());
    expect(result).toMatchObject({ outcome: 'failed', status: 200 });
    expect(result.outcome === 'failed' && result.reason).toContain('21301');
    expectSecretFree(result, wrong, SECRET);
  });

  it('answers failed when the package is not the app registered with Xiaomi (22022)', async () => {
    const result = await provider({ packageName: 'com.example.other' }).send(device(null), notification());
    expect(result).toMatchObject({ outcome: 'failed', status: 200 });
    expect(result.outcome === 'failed' && result.reason).toContain('22022');
  });

  it('reports an unknown regid ("No valid targets!", 20301) as dead, without echoing it', async () => {
    const target = device();
    fake.addDeadToken(target.token);
    const result = await provider().send(target, notification());
    expect(result.outcome).toBe('dead_token');
    expectSecretFree(result, target.token);
  });

  it('reports a regid listed in bad_regids of a success as dead', async () => {
    const target = device();
    const body = JSON.stringify({
      result: 'ok',
      code: 0,
      description: '成功',
      data: { id: 'scm1', bad_regids: target.token },
    });
    fake.failNext(1, { status: 200, body });
    expect((await provider().send(target, notification())).outcome).toBe('dead_token');
  });

  it('answers retry on busy, rate-limit and server errors', async () => {
    const adapter = provider();
    fake.failNext(1, { status: 200, code: 10002, reason: 'system busy' });
    fake.failNext(1, { status: 200, code: 10027, reason: 'too frequent' });
    fake.failNext(1, { status: 502 });
    fake.failNext(1, { status: 429, headers: { 'retry-after': '9' } });
    expect(await adapter.send(device(), notification())).toMatchObject({ outcome: 'retry', status: 200 });
    expect(await adapter.send(device(), notification())).toMatchObject({ outcome: 'retry', status: 200 });
    expect(await adapter.send(device(), notification())).toMatchObject({ outcome: 'retry', status: 502 });
    expect(await adapter.send(device(), notification())).toMatchObject({
      outcome: 'retry',
      status: 429,
      retryAfterMs: 9000,
    });
  });

  it('answers failed on permanent errors', async () => {
    fake.failNext(1, { status: 200, code: 22000, reason: 'Invalid application' });
    const result = await provider().send(device(), notification());
    expect(result).toMatchObject({ outcome: 'failed', status: 200 });
    expect(result.outcome === 'failed' && result.reason).toContain('22000');
  });

  it('clips title and description to what Mi Push accepts', async () => {
    const result = await provider().send(device(), notification({ title: 'T'.repeat(70), body: 'b'.repeat(300) }));
    expect(result.outcome).toBe('sent');
    expect(Array.from(fake.received[0].title)).toHaveLength(49);
    expect(Array.from(fake.received[0].description)).toHaveLength(127);
  });

  it('answers failed without a request for an already expired notification', async () => {
    const result = await provider().send(device(), notification({ expiresAt: Date.now() - 1 }));
    expect(result).toMatchObject({ outcome: 'failed', status: null });
    expect(fake.received).toHaveLength(0);
  });

  it('answers retry when Mi Push is down', async () => {
    fake.setDown(true);
    expect(await provider().send(device(), notification())).toMatchObject({ outcome: 'retry', status: 503 });
  });

  it('answers retry when nothing answers within timeoutMs', async () => {
    fake.setDelay(2000);
    const result = await provider({}, { timeoutMs: 300 }).send(device(), notification());
    expect(result).toMatchObject({ outcome: 'retry', status: null });
    expect(result.outcome === 'retry' && result.reason).toContain('no answer');
  });

  it('answers retry when the server cannot be reached', async () => {
    expect(await provider({ url: 'https://127.0.0.1:1' }).send(device(), notification())).toMatchObject({
      outcome: 'retry',
      status: null,
    });
  });

  it('close() releases its keep-alive connections', async () => {
    const adapter = provider();
    await adapter.send(device(), notification());
    expect(await fake.openConnections()).toBeGreaterThan(0);
    await adapter.close();
    for (let i = 0; i < 50 && (await fake.openConnections()) > 0; i += 1) await new Promise((r) => setTimeout(r, 20));
    expect(await fake.openConnections()).toBe(0);
  });
});
