import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { loadFcmConfig } from '../../../src/config/push/fcm-config';
import { FcmProvider } from '../../../src/push/providers/fcm/fcm-provider';
import type { PushDevice, PushNotification, PushResult } from '../../../src/push/providers/push-provider';
import { FakeFcm, FakeServiceAccount } from '../fakes/fake-fcm';

/** The FCM adapter against the fake FCM and its OAuth2 token endpoint, over real TLS. */
describe('FCM adapter', () => {
  let fcm: FakeFcm;
  let account: FakeServiceAccount;
  let dir: string;
  let caFile: string;
  const providers: FcmProvider[] = [];

  beforeAll(async () => {
    fcm = await FakeFcm.start();
    account = await fcm.serviceAccount('chat-test');
    dir = mkdtempSync(join(tmpdir(), 'fake-fcm-'));
    caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, fcm.caPem);
  });

  afterEach(async () => {
    await Promise.all(providers.splice(0).map((provider) => provider.close()));
    fcm.setDown(false);
    fcm.setDelay({});
  });

  afterAll(async () => {
    await fcm.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function provider(options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): FcmProvider {
    const problems: string[] = [];
    const config = loadFcmConfig(
      { FCM_SERVICE_ACCOUNT: account.json, FCM_URL: fcm.url, FCM_CA_FILE: caFile, ...options.env },
      problems,
    );
    expect(problems).toEqual([]);
    const created = new FcmProvider(config!, { timeoutMs: options.timeoutMs ?? 10_000, androidChannelId: 'messages' });
    providers.push(created);
    return created;
  }

  function device(): PushDevice {
    return { provider: 'fcm', token: FakeFcm.deviceToken(), packageName: 'com.example.chat' };
  }

  function note(overrides: Partial<PushNotification> = {}): PushNotification {
    const eventId = randomUUID();
    return {
      eventId,
      kind: 'message',
      priority: 'normal',
      title: 'Alice',
      body: 'Lunch?',
      badge: 2,
      threadId: 'conv-1',
      data: { type: 'message', conversation_id: 'conv-1', event_id: eventId },
      expiresAt: Date.now() + 3600_000,
      ...overrides,
    };
  }

  function expectSecretFree(result: PushResult, secrets: string[]): void {
    const reason = 'reason' in result ? result.reason : '';
    for (const secret of secrets) expect(reason).not.toContain(secret);
    expect(reason).not.toMatch(/ya29\./);
  }

  it('delivers a message as a notification the device shows once, even when re-sent', async () => {
    const fcmProvider = provider();
    const target = device();
    const n = note();
    const result = await fcmProvider.send(target, n);
    expect(result).toEqual({
      outcome: 'sent',
      status: 200,
      providerId: expect.stringMatching(/^projects\/chat-test\/messages\//),
    });
    const [received] = fcm.received.filter((entry) => entry.token === target.token);
    expect(received).toMatchObject({ collapseKey: n.eventId, priority: 'NORMAL' });
    expect(received.message).toMatchObject({
      notification: { title: 'Alice', body: 'Lunch?' },
      data: n.data,
      android: {
        ttl: expect.stringMatching(/^\d+s$/),
        notification: { tag: n.eventId, notification_count: 2, channel_id: 'messages' },
      },
      apns: {
        headers: { 'apns-collapse-id': n.eventId, 'apns-priority': '5' },
        payload: { aps: { badge: 2, 'thread-id': 'conv-1' } },
      },
    });
    expect(await fcmProvider.send(target, n)).toMatchObject({ outcome: 'sent' });
    expect(fcm.shown(target.token)).toEqual([
      { title: 'Alice', body: 'Lunch?', tag: n.eventId, badge: 2, channelId: 'messages', data: n.data },
    ]);
    const later = note({ body: 'Or dinner?' });
    await fcmProvider.send(target, later);
    expect(fcm.shown(target.token).map((shown) => shown.body)).toEqual(['Lunch?', 'Or dinner?']);
  });

  it('delivers a call data-only at high priority: it reaches the app, not the tray', async () => {
    const target = device();
    const n = note({
      kind: 'call',
      priority: 'high',
      title: 'Bob',
      body: 'Incoming video call',
      data: { type: 'call', call_id: 'k1' },
    });
    expect(await provider().send(target, n)).toMatchObject({ outcome: 'sent' });
    const [received] = fcm.received.filter((entry) => entry.token === target.token);
    expect(received.priority).toBe('HIGH');
    expect(received.message).not.toHaveProperty('notification');
    expect(received.message).toMatchObject({
      data: { type: 'call', call_id: 'k1', title: 'Bob', body: 'Incoming video call' },
    });
    expect(fcm.shown(target.token)).toEqual([]);
  });

  it('shortens a body too long for 4096 bytes, and FCM accepts it', async () => {
    const target = device();
    expect(await provider().send(target, note({ body: 'ё'.repeat(4000) }))).toMatchObject({ outcome: 'sent' });
    const [shown] = fcm.shown(target.token);
    expect(shown.body.endsWith('\u2026')).toBe(true);
    expect(shown.body.length).toBeLessThan(4000);
  });

  it('exchanges the assertion once and reuses the access token across sends, also for concurrent ones', async () => {
    const before = fcm.tokensIssued;
    const fcmProvider = provider();
    const results = await Promise.all([1, 2, 3, 4].map(() => fcmProvider.send(device(), note())));
    expect(results.map((result) => result.outcome)).toEqual(['sent', 'sent', 'sent', 'sent']);
    expect(await fcmProvider.send(device(), note())).toMatchObject({ outcome: 'sent' });
    expect(fcm.tokensIssued - before).toBe(1);
  });

  it('on a 401 gets a fresh token and sends again at once', async () => {
    const fcmProvider = provider();
    expect(await fcmProvider.send(device(), note())).toMatchObject({ outcome: 'sent' });
    const issued = fcm.tokensIssued;
    fcm.expireTokens();
    const start = fcm.answered.length;
    expect(await fcmProvider.send(device(), note())).toMatchObject({ outcome: 'sent' });
    expect(fcm.tokensIssued).toBe(issued + 1);
    expect(fcm.answered.slice(start)).toEqual([
      { endpoint: 'send', status: 401 },
      { endpoint: 'token', status: 200 },
      { endpoint: 'send', status: 200 },
    ]);
  });

  it('answers retry when FCM refuses the fresh token too', async () => {
    const fcmProvider = provider();
    fcm.failNext(2, { status: 401, message: 'Request had invalid authentication credentials.' });
    const result = await fcmProvider.send(device(), note());
    expect(result).toMatchObject({ outcome: 'retry', status: 401 });
    expect(await fcmProvider.send(device(), note())).toMatchObject({ outcome: 'sent' });
  });

  it('reports a dead token (404 UNREGISTERED) without the token in the reason', async () => {
    const target = device();
    fcm.markDead(target.token);
    const result = await provider().send(target, note());
    expect(result).toMatchObject({ outcome: 'dead_token', status: 404 });
    expect(result).toHaveProperty('reason', expect.stringContaining('UNREGISTERED'));
    expectSecretFree(result, [target.token]);
  });

  it('reports a malformed registration token dead, another invalid argument failed', async () => {
    const fcmProvider = provider();
    const malformed = { ...device(), token: 'not-a-token' };
    expect(await fcmProvider.send(malformed, note())).toMatchObject({ outcome: 'dead_token', status: 400 });
    const tooBig = await fcmProvider.send(device(), note({ data: { type: 'message', blob: 'x'.repeat(5000) } }));
    expect(tooBig).toMatchObject({ outcome: 'failed', status: 400 });
  });

  it('reports a token of another sender dead, and the project refused failed', async () => {
    fcm.failNext(1, { status: 403, errorCode: 'SENDER_ID_MISMATCH', message: 'SenderId mismatch' });
    expect(await provider().send(device(), note())).toMatchObject({ outcome: 'dead_token', status: 403 });
    const elsewhere = provider({ env: { FCM_PROJECT_ID: 'someone-else' } });
    expect(await elsewhere.send(device(), note())).toMatchObject({ outcome: 'failed', status: 403 });
  });

  it('fails, without renewing its token, on a 401 about the APNs credentials in the Firebase console', async () => {
    const fcmProvider = provider();
    expect(await fcmProvider.send(device(), note())).toMatchObject({ outcome: 'sent' });
    const issued = fcm.tokensIssued;
    fcm.failNext(1, {
      status: 401,
      errorCode: 'THIRD_PARTY_AUTH_ERROR',
      message: 'Auth error from APNS or Web Push Service',
    });
    expect(await fcmProvider.send(device(), note())).toMatchObject({ outcome: 'failed', status: 401 });
    expect(fcm.tokensIssued).toBe(issued);
  });

  it("never drops a registration on a 404 that is not Google's error body (a proxy's)", async () => {
    fcm.failNext(1, { status: 404, body: { message: 'no route' } });
    expect(await provider().send(device(), note())).toMatchObject({ outcome: 'failed', status: 404 });
  });

  it('retries a 429 after the Retry-After FCM gave', async () => {
    fcm.failNext(1, { status: 429, errorCode: 'QUOTA_EXCEEDED', message: 'Quota exceeded.', retryAfterSeconds: 17 });
    expect(await provider().send(device(), note())).toMatchObject({
      outcome: 'retry',
      status: 429,
      retryAfterMs: 17_000,
    });
  });

  it('retries a 503 and a 500', async () => {
    const fcmProvider = provider();
    fcm.failNext(1, { status: 503, errorCode: 'UNAVAILABLE' });
    fcm.failNext(1, { status: 500, errorCode: 'INTERNAL' });
    expect(await fcmProvider.send(device(), note())).toMatchObject({ outcome: 'retry', status: 503 });
    expect(await fcmProvider.send(device(), note())).toMatchObject({ outcome: 'retry', status: 500 });
    fcm.setDown(true);
    expect(await fcmProvider.send(device(), note())).toMatchObject({ outcome: 'retry', status: 503 });
  });

  it('retries when FCM does not answer in time, or drops the connection', async () => {
    const fcmProvider = provider({ timeoutMs: 500 });
    expect(await fcmProvider.send(device(), note())).toMatchObject({ outcome: 'sent' });
    fcm.setDelay({ send: 5000 });
    const late = await fcmProvider.send(device(), note());
    expect(late).toMatchObject({ outcome: 'retry', status: null, reason: expect.stringContaining('no answer within') });
    fcm.setDelay({});
    fcm.setDown('reset');
    expect(await fcmProvider.send(device(), note())).toMatchObject({ outcome: 'retry', status: null });
  });

  it('retries when the token endpoint fails, and recovers once it answers', async () => {
    const fcmProvider = provider();
    fcm.failTokenNext(1, { status: 500 });
    const result = await fcmProvider.send(device(), note());
    expect(result).toMatchObject({ outcome: 'retry', status: 500, reason: expect.stringContaining('oauth') });
    expectSecretFree(result, [account.privateKeyPem]);
    expect(await fcmProvider.send(device(), note())).toMatchObject({ outcome: 'sent' });
  });

  it('retries when the token endpoint refuses the grant (a deleted key), naming Google’s error', async () => {
    fcm.failTokenNext(1, { status: 400, message: 'Invalid JWT Signature.' });
    const result = await provider().send(device(), note());
    expect(result).toMatchObject({
      outcome: 'retry',
      status: 400,
      reason: 'oauth: HTTP 400 invalid_grant: Invalid JWT Signature.',
    });
  });

  it('is refused by the token endpoint when the assertion is signed with another key or for another audience', async () => {
    const stranger = await fcm.serviceAccount('chat-test');
    const forged = JSON.stringify({ ...account.key, private_key: stranger.privateKeyPem });
    const withForgedKey = provider({ env: { FCM_SERVICE_ACCOUNT: forged } });
    expect(await withForgedKey.send(device(), note())).toMatchObject({
      outcome: 'retry',
      status: 400,
      reason: 'oauth: HTTP 400 invalid_grant: Invalid JWT Signature.',
    });
    const otherAudience = JSON.stringify({ ...account.key, token_uri: `${fcm.tokenUri}?audience=other` });
    expect(await provider({ env: { FCM_SERVICE_ACCOUNT: otherAudience } }).send(device(), note())).toMatchObject({
      outcome: 'retry',
      reason: expect.stringContaining('Failed audience check'),
    });
  });

  it('does not trust the fake without its CA', async () => {
    const problems: string[] = [];
    const config = loadFcmConfig({ FCM_SERVICE_ACCOUNT: account.json, FCM_URL: fcm.url }, problems);
    const untrusting = new FcmProvider(config!, { timeoutMs: 10_000 });
    providers.push(untrusting);
    expect(await untrusting.send(device(), note())).toMatchObject({ outcome: 'retry', status: null });
  });

  it('close() frees every connection, and a send after it does not throw', async () => {
    const fcmProvider = provider();
    expect(await fcmProvider.send(device(), note())).toMatchObject({ outcome: 'sent' });
    expect(fcm.openConnections).toBeGreaterThan(0);
    await fcmProvider.close();
    for (let waited = 0; fcm.openConnections > 0 && waited < 10_000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(fcm.openConnections).toBe(0);
    expect(await fcmProvider.send(device(), note())).toMatchObject({ outcome: 'retry' });
  });
});
