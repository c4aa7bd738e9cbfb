import { generateKeyPairSync, KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, IncomingHttpHeaders } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApnsConfig, loadApnsConfig } from '../../../src/config/push/apns-config';
import { ApnsTokenSource } from '../../../src/push/providers/apns/apns-jwt';
import { ApnsProvider, ApnsProviderOptions } from '../../../src/push/providers/apns/apns-provider';
import type { PushDevice, PushNotification, PushResult } from '../../../src/push/providers/push-provider';
import { FakeApns } from '../fakes/fake-apns';

/** The APNs adapter against the fake APNs: shaping, auth, answers and connection handling. */
describe('APNs adapter against the fake APNs', () => {
  const KEY_ID = 'ABC123DEFG';
  const TEAM_ID = 'TEAM123456';
  const TOPIC = 'com.example.chat';
  const keys = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const dir = mkdtempSync(join(tmpdir(), 'apns-e2e-'));
  let apns: FakeApns;
  let config: ApnsConfig;
  const providers: ApnsProvider[] = [];

  const token = (n: number): string => n.toString(16).padStart(64, '0');
  const alert = (n: number): PushDevice => ({ provider: 'apns', token: token(n), packageName: TOPIC });
  const voip = (n: number): PushDevice => ({ provider: 'apns_voip', token: token(n), packageName: TOPIC });
  let eventCounter = 0;
  const notification = (overrides: Partial<PushNotification> = {}): PushNotification => {
    const eventId = `00000000-0000-4000-8000-${String(++eventCounter).padStart(12, '0')}`;
    return {
      eventId,
      kind: 'message',
      priority: 'normal',
      title: 'Alice',
      body: 'See you at eight',
      badge: 3,
      threadId: 'conv-1',
      data: { conversation_id: 'conv-1', event_id: eventId, type: 'message' },
      expiresAt: Date.now() + 3_600_000,
      ...overrides,
    };
  };
  const adapter = (options: ApnsProviderOptions = {}, override: Partial<ApnsConfig> = {}): ApnsProvider => {
    const provider = new ApnsProvider({ ...config, ...override }, { timeoutMs: 10_000, ...options });
    providers.push(provider);
    return provider;
  };
  /** A raw request to the fake, to see what it answers to what the adapter never sends. */
  const raw = async (
    headers: Record<string, string>,
    body: string,
  ): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> => {
    const session = connect(apns.url, { ca: apns.caPem });
    try {
      return await new Promise((resolve, reject) => {
        const stream = session.request(headers);
        let answer: IncomingHttpHeaders = {};
        let text = '';
        stream.on('response', (received) => (answer = received));
        stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        stream.on('end', () => resolve({ status: Number(answer[':status']), headers: answer, body: text }));
        stream.on('error', reject);
        stream.end(body);
      });
    } finally {
      await new Promise<void>((resolve) => session.close(resolve));
    }
  };
  const validHeaders = (overrides: Record<string, string> = {}): Record<string, string> => ({
    ':method': 'POST',
    ':path': `/3/device/${token(99)}`,
    authorization: `bearer ${new ApnsTokenSource({ key: keys.privateKey, keyId: KEY_ID, teamId: TEAM_ID }).token()}`,
    'apns-topic': TOPIC,
    'apns-push-type': 'alert',
    'apns-priority': '10',
    ...overrides,
  });
  const reasons = (results: PushResult[]): string[] =>
    results.map((result) => ('reason' in result ? result.reason : '')).filter((reason) => reason !== '');

  beforeEach(async () => {
    apns = await FakeApns.start({ publicKey: keys.publicKey, keyId: KEY_ID, teamId: TEAM_ID, topic: TOPIC });
    const caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, apns.caPem);
    const problems: string[] = [];
    const pem = keys.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const loaded = loadApnsConfig(
      {
        APNS_KEY: pem.replace(/\n/g, '\\n'),
        APNS_KEY_ID: KEY_ID,
        APNS_TEAM_ID: TEAM_ID,
        APNS_TOPIC: TOPIC,
        APNS_ENVIRONMENT: 'sandbox',
        APNS_URL: apns.url,
        APNS_CA_FILE: caFile,
      },
      problems,
    );
    expect(problems).toEqual([]);
    config = loaded!;
  });

  afterEach(async () => {
    await Promise.all(providers.splice(0).map((provider) => provider.close()));
    await apns.close();
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sends an alert push with Apple headers, an accepted provider token and the aps payload', async () => {
    const provider = adapter();
    const sent = notification();
    const result = await provider.send(alert(1), sent);
    expect(result).toEqual({ outcome: 'sent', status: 200, providerId: apns.received[0].apnsId });
    expect(apns.received).toHaveLength(1);
    const [received] = apns.received;
    expect(received).toMatchObject({
      token: token(1),
      topic: TOPIC,
      pushType: 'alert',
      priority: 10,
      collapseKey: sent.eventId,
      expiration: Math.floor(sent.expiresAt / 1000),
    });
    expect(received.headers.authorization).toMatch(/^bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    expect(received.payload).toEqual({
      aps: {
        alert: { title: 'Alice', body: 'See you at eight' },
        badge: 3,
        sound: 'default',
        'thread-id': 'conv-1',
        'mutable-content': 1,
      },
      ...sent.data,
    });
  });

  it('sends a VoIP push to the .voip topic with the data only, which the device does not show', async () => {
    const provider = adapter();
    const call = notification({ kind: 'call', priority: 'high', data: { type: 'call', call_id: 'c-1' } });
    expect(await provider.send(voip(2), call)).toMatchObject({ outcome: 'sent', status: 200 });
    expect(apns.received[0]).toMatchObject({
      topic: `${TOPIC}.voip`,
      pushType: 'voip',
      priority: 10,
      payload: { type: 'call', call_id: 'c-1' },
    });
    expect(apns.shown(token(2))).toEqual([]);
  });

  it('shows a re-sent notification once: the collapse ID replaces the earlier one', async () => {
    const provider = adapter();
    const first = notification();
    const second = notification({ body: 'Second' });
    await provider.send(alert(3), first);
    await provider.send(alert(3), second);
    await provider.send(alert(3), { ...first, body: 'First, again' });
    expect(apns.received).toHaveLength(3);
    const shown = apns.shown(token(3));
    expect(shown.map((n) => n.collapseKey)).toEqual([second.eventId, first.eventId]);
    expect((shown[1].payload.aps as { alert: { body: string } }).alert.body).toBe('First, again');
  });

  it('reuses one HTTP/2 session for concurrent sends', async () => {
    const provider = adapter();
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => provider.send(alert(100 + i), notification())),
    );
    expect(results.every((result) => result.outcome === 'sent')).toBe(true);
    expect(apns.received).toHaveLength(30);
    expect(new Set(apns.received.map((n) => n.headers.authorization)).size).toBe(1);
  });

  it('reports dead tokens: 410 Unregistered, 400 BadDeviceToken and DeviceTokenNotForTopic', async () => {
    const provider = adapter();
    apns.addDeadToken(token(4));
    const results = [
      await provider.send(alert(4), notification()),
      await (async () => {
        apns.failNext(1, { status: 400, reason: 'BadDeviceToken' });
        return provider.send(alert(5), notification());
      })(),
      await (async () => {
        apns.failNext(1, { status: 400, reason: 'DeviceTokenNotForTopic' });
        return provider.send(alert(6), notification());
      })(),
    ];
    expect(results).toEqual([
      { outcome: 'dead_token', status: 410, reason: 'Unregistered' },
      { outcome: 'dead_token', status: 400, reason: 'BadDeviceToken' },
      { outcome: 'dead_token', status: 400, reason: 'DeviceTokenNotForTopic' },
    ]);
    expect(apns.requests.find((r) => r.status === 410)?.body).toBeDefined();
    expect(apns.received).toHaveLength(0);
  });

  it('does not send a token that is not hexadecimal', async () => {
    const provider = adapter();
    const result = await provider.send({ provider: 'apns', token: '../../x', packageName: null }, notification());
    expect(result).toEqual({
      outcome: 'dead_token',
      status: null,
      reason: 'BadDeviceToken (not hexadecimal; not sent)',
    });
    expect(apns.requests).toHaveLength(0);
  });

  it('renews the provider token on ExpiredProviderToken and sends again at once', async () => {
    const provider = adapter();
    apns.failNext(1, { status: 403, reason: 'ExpiredProviderToken' });
    expect(await provider.send(alert(7), notification())).toMatchObject({ outcome: 'sent', status: 200 });
    expect(apns.requests.map((r) => r.status)).toEqual([403, 200]);
    expect(apns.requests[1].headers.authorization).not.toBe(apns.requests[0].headers.authorization);
    // The renewed token is kept for later sends.
    await provider.send(alert(7), notification());
    expect(apns.requests[2].headers.authorization).toBe(apns.requests[1].headers.authorization);
  });

  it('answers retry when the renewed token is refused as expired too (a clock two hours slow)', async () => {
    const provider = adapter({ now: () => Date.now() - 2 * 3_600_000 });
    const result = await provider.send(alert(8), notification());
    expect(result).toEqual({ outcome: 'retry', status: 403, reason: 'ExpiredProviderToken' });
    expect(apns.requests.map((r) => r.reason)).toEqual(['ExpiredProviderToken', 'ExpiredProviderToken']);
    expect(apns.received).toHaveLength(0);
  });

  it('fails on a token signed by another key or naming another key ID', async () => {
    const otherKey: KeyObject = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    const wrongKey = await adapter({}, { key: otherKey }).send(alert(9), notification());
    const wrongKid = await adapter({}, { keyId: 'ZZZ999ZZZZ' }).send(alert(9), notification());
    expect(wrongKey).toEqual({ outcome: 'failed', status: 403, reason: 'InvalidProviderToken' });
    expect(wrongKid).toEqual({ outcome: 'failed', status: 403, reason: 'InvalidProviderToken' });
  });

  it('fails on a topic the key does not serve', async () => {
    const result = await adapter({}, { topic: 'com.example.other' }).send(alert(10), notification());
    expect(result).toEqual({ outcome: 'failed', status: 400, reason: 'BadTopic' });
  });

  it('retries on 429, 500 and 503, passing on a Retry-After', async () => {
    const provider = adapter();
    apns.failNext(1, { status: 429, reason: 'TooManyRequests', headers: { 'retry-after': '7' } });
    apns.failNext(1, { status: 500, reason: 'InternalServerError' });
    apns.failNext(1, { status: 503, reason: 'ServiceUnavailable' });
    // A proxy's error page rather than Apple's JSON: the status alone decides.
    apns.failNext(1, { status: 502, body: '<html>Bad gateway</html>' });
    const results: PushResult[] = [];
    for (let i = 0; i < 4; i++) results.push(await provider.send(alert(11), notification()));
    expect(results).toEqual([
      { outcome: 'retry', status: 429, reason: 'TooManyRequests', retryAfterMs: 7000 },
      { outcome: 'retry', status: 500, reason: 'InternalServerError' },
      { outcome: 'retry', status: 503, reason: 'ServiceUnavailable' },
      { outcome: 'retry', status: 502, reason: 'HTTP 502' },
    ]);
  });

  it('retries while APNs is down, answering 503 or refusing connections, and reconnects once it is back', async () => {
    const provider = adapter();
    expect((await provider.send(alert(12), notification())).outcome).toBe('sent');
    await apns.setDown(true);
    expect(await provider.send(alert(12), notification())).toEqual({
      outcome: 'retry',
      status: 503,
      reason: 'ServiceUnavailable',
    });
    await apns.setDown(true, 'refuse');
    const refused = await provider.send(alert(12), notification());
    expect(refused).toMatchObject({ outcome: 'retry', status: null });
    expect((refused as { reason: string }).reason).toMatch(/^network: /);
    await apns.setDown(false);
    expect((await provider.send(alert(12), notification())).outcome).toBe('sent');
    expect(apns.received).toHaveLength(2);
  });

  it('opens a new session after APNs ends the last one with a GOAWAY', async () => {
    const provider = adapter();
    expect((await provider.send(alert(20), notification())).outcome).toBe('sent');
    apns.goAway();
    // A send racing the GOAWAY may be refused (retry); none after it may be.
    const racing = await provider.send(alert(20), notification());
    expect(['sent', 'retry']).toContain(racing.outcome);
    expect((await provider.send(alert(20), notification())).outcome).toBe('sent');
  });

  it('answers retry on a timeout, and the session still serves the next send', async () => {
    const provider = adapter({ timeoutMs: 500 });
    expect((await provider.send(alert(13), notification())).outcome).toBe('sent');
    apns.setDelay(30_000);
    expect(await provider.send(alert(13), notification())).toEqual({
      outcome: 'retry',
      status: null,
      reason: 'timeout',
    });
    apns.setDelay(0);
    expect((await provider.send(alert(13), notification())).outcome).toBe('sent');
  });

  it('cuts an overlong text to fit, and fails without sending when the data alone is too large', async () => {
    const provider = adapter();
    const long = notification({ body: 'Ünïcödé 😀 '.repeat(1000) });
    expect((await provider.send(alert(14), long)).outcome).toBe('sent');
    const text = (apns.received[0].payload.aps as { alert: { body: string } }).alert.body;
    expect(text.endsWith('…')).toBe(true);
    expect(long.body.startsWith(text.slice(0, -1))).toBe(true);

    const huge = notification({ data: { type: 'message', blob: 'x'.repeat(5000) } });
    expect(await provider.send(alert(14), huge)).toEqual({ outcome: 'failed', status: 413, reason: 'PayloadTooLarge' });
    expect(apns.requests).toHaveLength(1);
  });

  it('never puts a device token or the provider token in a reason', async () => {
    const provider = adapter();
    apns.addDeadToken(token(15));
    const results = [
      await provider.send(alert(15), notification()),
      await (async () => {
        apns.failNext(1, { status: 400, reason: 'BadCollapseId' });
        return provider.send(alert(16), notification());
      })(),
      await provider.send({ provider: 'apns', token: `${token(17)}zz`, packageName: null }, notification()),
    ];
    for (const reason of reasons(results)) {
      expect(reason).not.toContain(token(15).slice(-20));
      expect(reason).not.toContain(token(17).slice(-20));
      expect(reason).not.toMatch(/bearer|ey[A-Za-z0-9_-]{10}/);
    }
    expect(results[1]).toEqual({ outcome: 'failed', status: 400, reason: 'BadCollapseId' });
  });

  it('answers retry after close, and close leaves no socket or timer behind', async () => {
    const before = process.getActiveResourcesInfo();
    const provider = adapter();
    await Promise.all([provider.send(alert(18), notification()), provider.send(alert(19), notification())]);
    expect(apns.connections).toBe(1);
    await provider.close();
    // The fake learns of the closed connection on a later turn of the event loop.
    for (let i = 0; i < 250 && apns.connections > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(apns.connections).toBe(0);
    expect(await provider.send(alert(18), notification())).toEqual({
      outcome: 'retry',
      status: null,
      reason: 'adapter closed',
    });
    await apns.close();
    const count = (list: string[], kind: string): number => list.filter((r) => r === kind).length;
    const kinds = ['TLSWrap', 'TCPSocketWrap', 'TCPServerWrap', 'Timeout'];
    const leftOver = (): string[] => {
      const after = process.getActiveResourcesInfo();
      return kinds.filter((kind) => count(after, kind) > count(before, kind));
    };
    // Sockets release their handles on a later turn of the event loop; a leak never does.
    for (let i = 0; i < 250 && leftOver().length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(leftOver()).toEqual([]);
  });

  describe('the fake checks requests as APNs does', () => {
    it('accepts a well-formed request and echoes an apns-id', async () => {
      const answer = await raw(validHeaders(), JSON.stringify({ aps: { alert: 'hi' } }));
      expect(answer.status).toBe(200);
      expect(answer.headers['apns-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it.each([
      ['MethodNotAllowed', 405, { ':method': 'PUT' }, '{"aps":{"alert":"hi"}}'],
      ['BadPath', 404, { ':path': '/3/devices/abc' }, '{"aps":{"alert":"hi"}}'],
      ['BadDeviceToken', 400, { ':path': '/3/device/not-hex' }, '{"aps":{"alert":"hi"}}'],
      ['MissingProviderToken', 403, { authorization: '' }, '{"aps":{"alert":"hi"}}'],
      ['InvalidProviderToken', 403, { authorization: 'bearer a.b.c' }, '{"aps":{"alert":"hi"}}'],
      ['BadTopic', 400, { 'apns-topic': 'com.example.other' }, '{"aps":{"alert":"hi"}}'],
      ['InvalidPushType', 400, { 'apns-push-type': 'voip' }, '{"aps":{"alert":"hi"}}'],
      ['InvalidPushType', 400, { 'apns-topic': `${TOPIC}.voip` }, '{"aps":{"alert":"hi"}}'],
      ['InvalidPushType', 400, { 'apns-push-type': 'background' }, '{"aps":{}}'],
      ['BadPriority', 400, { 'apns-priority': '7' }, '{"aps":{"alert":"hi"}}'],
      ['BadExpirationDate', 400, { 'apns-expiration': 'soon' }, '{"aps":{"alert":"hi"}}'],
      ['BadCollapseId', 400, { 'apns-collapse-id': 'c'.repeat(65) }, '{"aps":{"alert":"hi"}}'],
      ['PayloadEmpty', 400, {}, ''],
      ['PayloadEmpty', 400, {}, '{"data":"no aps"}'],
      ['PayloadTooLarge', 413, {}, JSON.stringify({ aps: { alert: 'x'.repeat(4100) } })],
      [
        'PayloadTooLarge',
        413,
        { 'apns-topic': `${TOPIC}.voip`, 'apns-push-type': 'voip' },
        JSON.stringify({ blob: 'x'.repeat(5200) }),
      ],
    ])('answers %s (%i) to %j', async (reason, status, headers, body) => {
      const answer = await raw(validHeaders(headers as Record<string, string>), body);
      expect(answer.status).toBe(status);
      expect(JSON.parse(answer.body)).toEqual({ reason });
      expect(apns.received).toHaveLength(0);
    });

    it('accepts a VoIP payload of up to 5120 bytes without aps', async () => {
      const body = JSON.stringify({ blob: 'x'.repeat(5000) });
      const answer = await raw(validHeaders({ 'apns-topic': `${TOPIC}.voip`, 'apns-push-type': 'voip' }), body);
      expect(answer.status).toBe(200);
    });

    it('answers a dead token 410 with a timestamp', async () => {
      apns.addDeadToken(token(99));
      const answer = await raw(validHeaders(), '{"aps":{"alert":"hi"}}');
      expect(answer.status).toBe(410);
      expect(JSON.parse(answer.body)).toEqual({ reason: 'Unregistered', timestamp: expect.any(Number) });
    });
  });
});
