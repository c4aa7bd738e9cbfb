import { decode } from 'jsonwebtoken';
import { TEST_SECRETS, TestApp, bearer, hostAuth, issueUser, randomUserId, startTestApp } from '../helpers/test-app';

describe('POST /app/sdk/token (spec 4.1)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      PUSH_RULES: JSON.stringify([
        {
          platform: 'android',
          manufacturer: 'xiaomi',
          package_name: 'com.example.chat',
          config: { provider: 'mipush', app_id: '2882' },
        },
      ]),
    });
  });
  afterAll(() => t.close());

  const token = (body: Record<string, unknown>) =>
    t.http
      .post('/app/sdk/token')
      .set(...hostAuth())
      .send(body);

  it('issues a token whose payload matches the reply, with the no-store header', async () => {
    const userId = randomUserId();
    const response = await token({ user_id: userId, nickname: 'Alice' });
    expect(response.status).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toMatchObject({ code: 0, msg: 'ok' });
    const { user, token: jwt, expire_at, push } = response.body.data;
    expect(user).toEqual({
      id: expect.stringMatching(/^[1-9][0-9]*$/),
      user_id: userId,
      username: '',
      nickname: 'Alice',
      avatar: 'http://im.test/static/default-avatar.svg',
      signature: '',
      profile_updated_at: expect.any(Number),
    });
    expect(push).toEqual({});
    const header = JSON.parse(Buffer.from(jwt.split('.')[0], 'base64url').toString());
    expect(header.alg).toBe('HS256');
    const payload = decode(jwt) as Record<string, unknown>;
    expect(payload.user_id).toBe(userId);
    expect(payload.exp).toBe(expire_at);
    expect(expire_at).toBeLessThan(10_000_000_000); // seconds, not milliseconds
    expect(expire_at - Math.floor(Date.now() / 1000)).toBeGreaterThan(7 * 24 * 3600 - 60);
  });

  it('works as an IM token and not as the host secret', async () => {
    const alice = await issueUser(t);
    const asHost = await t.http
      .post('/app/sdk/token')
      .set(...bearer(alice.token))
      .send({ user_id: randomUserId(), nickname: 'x' });
    expect(asHost.body).toEqual({ code: 1001, msg: expect.any(String), data: null });
  });

  it('returns the push configuration that matches platform, manufacturer and package', async () => {
    const base = { user_id: randomUserId(), nickname: 'P' };
    const matched = await token({
      ...base,
      platform: 'android',
      manufacturer: 'Xiaomi',
      package_name: 'com.example.chat',
    });
    expect(matched.body.data.push).toEqual({ provider: 'mipush', app_id: '2882' });
    const other = await token({
      ...base,
      platform: 'android',
      manufacturer: 'huawei',
      package_name: 'com.example.chat',
    });
    expect(other.body.data.push).toEqual({});
  });

  it('creates exactly one user under twenty concurrent first calls', async () => {
    const userId = randomUserId();
    const replies = await Promise.all(Array.from({ length: 20 }, () => token({ user_id: userId, nickname: 'Racer' })));
    expect(replies.map((r) => r.body.code)).toEqual(Array(20).fill(0));
    expect(new Set(replies.map((r) => r.body.data.user.id)).size).toBe(1);
  });

  it('uses the secret in constant time and refuses every other credential with 1001', async () => {
    for (const header of [
      undefined,
      'Bearer wrong',
      `Basic ${TEST_SECRETS.SDK_SECRET}`,
      `Bearer ${TEST_SECRETS.SDK_SECRET}x`,
      'Bearer',
    ]) {
      const req = t.http.post('/app/sdk/token').send({ user_id: randomUserId(), nickname: 'x' });
      if (header) req.set('Authorization', header);
      const response = await req;
      expect(response.body.code).toBe(1001);
      expect(response.body.data).toBeNull();
    }
  });
});
