import type { PushDevice, PushNotification, PushResult } from '../../../src/push/providers/push-provider';
import type { HuaweiConfig } from '../../../src/config/push/huawei-config';
import { parseHuaweiServiceAccount } from '../../../src/push/providers/huawei/huawei-jwt';
import { HuaweiProvider, type HuaweiProviderOptions } from '../../../src/push/providers/huawei/huawei-provider';
import { huaweiNotifyId } from '../../../src/push/providers/huawei/huawei-request';
import { FakeHuawei } from '../fakes/fake-huawei';

/** The Huawei adapter against a fake Push Kit speaking the v1 protocol (OAuth, messages:send, codes). */
describe('Huawei Push Kit adapter', () => {
  const APP_ID = '104381234';
  const SECRET = 'c2VjcmV0LWNsaWVudC1zZWNyZXQ';
  let fake: FakeHuawei;
  const providers: HuaweiProvider[] = [];
  let clock: number;

  beforeEach(async () => {
    fake = await FakeHuawei.start({ appId: APP_ID, clientId: APP_ID, clientSecret: SECRET });
    clock = Date.now();
  });

  afterEach(async () => {
    await Promise.all(providers.splice(0).map((provider) => provider.close()));
    await fake.close();
  });

  function config(overrides: Partial<HuaweiConfig> = {}): HuaweiConfig {
    return {
      appId: APP_ID,
      clientId: APP_ID,
      clientSecret: SECRET,
      oauthUrl: `${fake.url}/oauth2/v3/token`,
      pushUrl: fake.url,
      caPem: fake.caPem,
      badgeClass: 'com.example.chat.MainActivity',
      harmony: { projectId: '388421841222199046', serviceAccount: parseHuaweiServiceAccount(fake.serviceAccountJson) },
      secrets: [SECRET],
      ...overrides,
    };
  }

  function provider(overrides: Partial<HuaweiConfig> = {}, options: HuaweiProviderOptions = {}): HuaweiProvider {
    const created = new HuaweiProvider(config(overrides), { timeoutMs: 5000, now: () => clock, ...options });
    providers.push(created);
    return created;
  }

  let tokenCounter = 0;
  function device(platform: PushDevice['platform'] = 'android'): PushDevice {
    tokenCounter += 1;
    return {
      provider: 'huawei',
      token: `IQAAAACy0kR3AABdevicetoken${tokenCounter}`,
      packageName: 'com.example.chat',
      platform,
    };
  }

  function notification(overrides: Partial<PushNotification> = {}): PushNotification {
    return {
      eventId: `evt-${Math.random().toString(36).slice(2)}`,
      kind: 'message',
      priority: 'normal',
      title: 'Alice',
      body: 'Are we still on for lunch?',
      badge: 4,
      threadId: 'conv-9',
      data: { conversation_id: 'conv-9', type: 'message' },
      expiresAt: clock + 600_000,
      ...overrides,
    };
  }

  function expectSecretFree(result: PushResult, ...secrets: string[]): void {
    for (const secret of secrets) expect(JSON.stringify(result)).not.toContain(secret);
  }

  it('sends a message notification shaped as Push Kit expects', async () => {
    const adapter = provider();
    const target = device();
    const sent = notification();
    const result = await adapter.send(target, sent);
    expect(result).toMatchObject({ outcome: 'sent', status: 200 });
    expect(result.outcome === 'sent' && result.providerId).toBeTruthy();
    expect(fake.received).toHaveLength(1);
    const received = fake.received[0];
    expect(received).toMatchObject({
      token: target.token,
      collapseKey: sent.eventId,
      priority: 'NORMAL',
      category: 'IM',
      title: 'Alice',
      body: 'Are we still on for lunch?',
      badge: { set_num: 4, class: 'com.example.chat.MainActivity' },
      data: { conversation_id: 'conv-9', type: 'message' },
    });
    expect(received.ttl).toMatch(/^(599|600)s$/);
    expect(received.headers['authorization']).toMatch(/^Bearer CF/);
  });

  it('sends calls as high-urgency VOIP', async () => {
    const adapter = provider();
    await adapter.send(device(), notification({ kind: 'call', priority: 'high', data: { type: 'call' } }));
    expect(fake.received[0]).toMatchObject({ priority: 'HIGH', category: 'VOIP' });
  });

  it('shows a re-sent event once: the tag replaces it on the device', async () => {
    const adapter = provider();
    const target = device();
    const first = notification();
    await adapter.send(target, first);
    await adapter.send(target, { ...first, body: 'resent after a crash' });
    await adapter.send(target, notification({ body: 'another event' }));
    expect(fake.received).toHaveLength(3);
    expect(fake.shown(target.token).map((n) => n.body)).toEqual(['resent after a crash', 'another event']);
  });

  it('reuses one access token across sends, fetching it once for concurrent sends', async () => {
    const adapter = provider();
    const results = await Promise.all(Array.from({ length: 6 }, () => adapter.send(device(), notification())));
    expect(results.every((r) => r.outcome === 'sent')).toBe(true);
    await adapter.send(device(), notification());
    expect(fake.tokenRequests).toBe(1);
  });

  it('renews the access token 5 minutes before it expires', async () => {
    const adapter = provider();
    await adapter.send(device(), notification());
    clock += 54 * 60_000;
    await adapter.send(device(), notification({ expiresAt: clock + 60_000 }));
    expect(fake.tokenRequests).toBe(1);
    clock += 2 * 60_000;
    await adapter.send(device(), notification({ expiresAt: clock + 60_000 }));
    expect(fake.tokenRequests).toBe(2);
  });

  it('renews the token and sends once more when Huawei says it expired (80200003)', async () => {
    const adapter = provider();
    await adapter.send(device(), notification());
    fake.expireAccessTokens();
    const result = await adapter.send(device(), notification());
    expect(result.outcome).toBe('sent');
    expect(fake.rejectedAuth).toBe(1);
    expect(fake.tokenRequests).toBe(2);
    expect(fake.received).toHaveLength(2);
  });

  it('answers retry when a fresh token is refused too', async () => {
    const adapter = provider();
    fake.failNext(2, { status: 401, code: '80200001', msg: 'Oauth authentication error' });
    const result = await adapter.send(device(), notification());
    expect(result).toMatchObject({ outcome: 'retry', status: 401 });
    expect(fake.tokenRequests).toBe(2);
    expect(fake.received).toHaveLength(0);
  });

  it('answers failed, without the secret, when OAuth refuses the client credentials', async () => {
    const wrong = 'wrong-client-secret-value';
    const result = await provider({ clientSecret: wrong }).send(device(), notification());
    expect(result).toMatchObject({ outcome: 'failed', status: 400 });
    expectSecretFree(result, wrong, SECRET);
    expect(fake.received).toHaveLength(0);
  });

  it('answers retry when the OAuth server is unavailable', async () => {
    fake.failNext(1, { status: 503, oauth: true, headers: { 'retry-after': '12' } });
    const result = await provider().send(device(), notification());
    expect(result).toMatchObject({ outcome: 'retry', status: 503, retryAfterMs: 12_000 });
  });

  it('reports an invalid token (80300007) as dead, without echoing it', async () => {
    const target = device();
    fake.addDeadToken(target.token);
    const result = await provider().send(target, notification());
    expect(result.outcome).toBe('dead_token');
    expectSecretFree(result, target.token);
  });

  it('reports a token named in illegal_tokens of a partial success (80100000) as dead', async () => {
    const target = device();
    const msg = JSON.stringify({ success: 0, failure: 1, illegal_tokens: [target.token] });
    fake.failNext(1, { status: 200, code: '80100000', msg });
    const result = await provider().send(target, notification());
    expect(result.outcome).toBe('dead_token');
    expectSecretFree(result, target.token);
  });

  it('answers retry on Huawei internal errors, flow control and rate limits', async () => {
    const adapter = provider();
    fake.failNext(1, { status: 500, code: '81000001', msg: 'System inner error' });
    fake.failNext(1, { status: 503, headers: { 'retry-after': '3' } });
    fake.failNext(1, { status: 429 });
    expect(await adapter.send(device(), notification())).toMatchObject({ outcome: 'retry', status: 500 });
    expect(await adapter.send(device(), notification())).toMatchObject({
      outcome: 'retry',
      status: 503,
      retryAfterMs: 3000,
    });
    expect(await adapter.send(device(), notification())).toMatchObject({ outcome: 'retry', status: 429 });
  });

  it('answers failed on permanent errors', async () => {
    const adapter = provider();
    fake.failNext(1, { status: 403, code: '80300002', msg: 'The current app does not have the permission' });
    fake.failNext(1, { status: 400, code: '80300008', msg: 'The message body size exceeds the default value' });
    const noPermission = await adapter.send(device(), notification());
    expect(noPermission).toMatchObject({ outcome: 'failed', status: 403 });
    expect(noPermission.outcome === 'failed' && noPermission.reason).toContain('80300002');
    expect(await adapter.send(device(), notification())).toMatchObject({ outcome: 'failed', status: 400 });
  });

  it('is refused by the fake (80100001) when the body breaks Push Kit rules', async () => {
    // An empty body is not a valid Huawei notification body: the fake rejects it as Push Kit would.
    const result = await provider().send(device(), notification({ body: '' }));
    expect(result).toMatchObject({ outcome: 'failed', status: 400 });
    expect(result.outcome === 'failed' && result.reason).toContain('80100001');
  });

  it('answers failed without a request for an already expired notification', async () => {
    const result = await provider().send(device(), notification({ expiresAt: clock - 1 }));
    expect(result).toMatchObject({ outcome: 'failed', status: null });
    expect(fake.tokenRequests).toBe(0);
  });

  it('answers retry when Push Kit is down', async () => {
    const adapter = provider();
    await adapter.send(device(), notification());
    fake.setDown(true);
    expect(await adapter.send(device(), notification())).toMatchObject({ outcome: 'retry', status: 503 });
  });

  it('answers retry when nothing answers within timeoutMs', async () => {
    const adapter = provider({}, { timeoutMs: 300 });
    fake.setDelay(2000);
    const result = await adapter.send(device(), notification());
    expect(result).toMatchObject({ outcome: 'retry', status: null });
    expect(result.outcome === 'retry' && result.reason).toContain('no answer');
  });

  it('answers retry when the server cannot be reached', async () => {
    const adapter = provider({ oauthUrl: 'https://127.0.0.1:1/oauth2/v3/token', pushUrl: 'https://127.0.0.1:1' });
    expect(await adapter.send(device(), notification())).toMatchObject({ outcome: 'retry', status: null });
  });

  it('close() releases its keep-alive connections', async () => {
    const adapter = provider();
    await adapter.send(device(), notification());
    expect(await fake.openConnections()).toBeGreaterThan(0);
    await adapter.close();
    for (let i = 0; i < 50 && (await fake.openConnections()) > 0; i += 1) await new Promise((r) => setTimeout(r, 20));
    expect(await fake.openConnections()).toBe(0);
  });

  describe('HarmonyOS NEXT devices (Push Kit v3)', () => {
    it('sends an alert through v3 with a service-account JWT and no OAuth exchange', async () => {
      const target = device('harmony');
      const sent = notification();
      const result = await provider().send(target, sent);
      expect(result).toMatchObject({ outcome: 'sent', status: 200 });
      expect(fake.tokenRequests).toBe(0);
      expect(fake.received[0]).toMatchObject({
        api: 'v3',
        token: target.token,
        collapseKey: String(huaweiNotifyId(sent.eventId)),
        category: 'IM',
        title: 'Alice',
        badge: { set_num: 4 },
        data: { conversation_id: 'conv-9', type: 'message' },
      });
      expect(fake.received[0].ttl).toMatch(/^(599|600)s$/);
      expect(fake.received[0].headers['push-type']).toBe('0');
      expect(fake.received[0].headers['authorization']).toMatch(/^Bearer eyJ/);
    });

    it('shows a re-sent event once: the notifyId replaces it', async () => {
      const adapter = provider();
      const target = device('harmony');
      const first = notification();
      await adapter.send(target, first);
      await adapter.send(target, { ...first, body: 'resent' });
      expect(fake.shown(target.token).map((n) => n.body)).toEqual(['resent']);
    });

    it('reuses the JWT and re-signs it 5 minutes before it expires', async () => {
      const adapter = provider();
      await adapter.send(device('harmony'), notification());
      clock += 54 * 60_000;
      await adapter.send(device('harmony'), notification({ expiresAt: clock + 60_000 }));
      clock += 2 * 60_000;
      await adapter.send(device('harmony'), notification({ expiresAt: clock + 60_000 }));
      const auth = fake.received.map((r) => r.headers['authorization']);
      expect(auth[1]).toBe(auth[0]);
      expect(auth[2]).not.toBe(auth[1]);
    });

    it('re-signs and sends once more when Huawei says the JWT expired (80200005)', async () => {
      const adapter = provider();
      await adapter.send(device('harmony'), notification());
      fake.expireJwts();
      expect((await adapter.send(device('harmony'), notification())).outcome).toBe('sent');
      expect(fake.rejectedAuth).toBe(1);
    });

    it('reports an invalid HarmonyOS token (80300007) as dead', async () => {
      const target = device('harmony');
      fake.addDeadToken(target.token);
      const result = await provider().send(target, notification());
      expect(result.outcome).toBe('dead_token');
      expectSecretFree(result, target.token);
    });

    it('answers failed, without a request, when v3 is not configured', async () => {
      const result = await provider({ harmony: null }).send(device('harmony'), notification());
      expect(result).toMatchObject({ outcome: 'failed', status: null });
      expect(result.outcome === 'failed' && result.reason).toContain('HUAWEI_PROJECT_ID');
      expect(fake.received).toHaveLength(0);
    });
  });
});
