// Browser sign-in wherever the service is opened (review items 5 and 7): a write whose Origin is
// the request's own scheme and host (forwarded ones only through TRUST_PROXY), or that the
// browser marks `Sec-Fetch-Site: same-origin`, passes the CSRF check of the admin console and of
// the bundled host application, whatever PUBLIC_BASE_URL says; a cross-site one changes nothing.
import type { Response, Test } from 'supertest';
import { TestApp, okData, startTestApp } from '../helpers/test-app';
import { ADMIN_PASSWORD, CSRF, createAdmin } from '../helpers/admin-client';
import { HOST_PASSWORD, freshCode, hostCookie, passwordLogin, randomPhone, signUp } from '../helpers/host-app-client';

type Headers = Record<string, string>;

/** How the browser (or proxy) addresses the service; PUBLIC_BASE_URL stays http://im.test. */
const LAN = { Host: '192.168.1.20:3000' };
const SAME_ORIGIN: Headers = { ...LAN, Origin: 'http://192.168.1.20:3000' };
const LOCALHOST: Headers = { Host: 'localhost:3000', Origin: 'http://localhost:3000' };
/** A proxy that passed its own name in Host: only the browser's Sec-Fetch-Site proves the page's origin. */
const SEC_FETCH_SAME: Headers = {
  Host: '10.0.0.5:3000',
  Origin: 'https://im.example.org',
  'Sec-Fetch-Site': 'same-origin',
};
const FORWARDED: Headers = {
  Host: '10.0.0.5:3000',
  'X-Forwarded-Proto': 'https',
  'X-Forwarded-Host': 'im.example.org',
  Origin: 'https://im.example.org',
};

const CROSS_SITE: Record<string, Headers> = {
  'another site': { ...LAN, Origin: 'https://evil.example' },
  'another port': { ...LAN, Origin: 'http://192.168.1.20:3001' },
  'another scheme': { ...LAN, Origin: 'https://192.168.1.20:3000' },
  'Origin null': { ...LAN, Origin: 'null', 'Sec-Fetch-Site': 'same-origin' },
  'own Origin marked cross-site': { ...SAME_ORIGIN, 'Sec-Fetch-Site': 'cross-site' },
  'own Origin marked same-site': { ...SAME_ORIGIN, 'Sec-Fetch-Site': 'same-site' },
  'no Origin, cross-site': { ...LAN, 'Sec-Fetch-Site': 'cross-site' },
  // Without TRUST_PROXY the forwarded headers are the client's own words.
  'forwarded, untrusted': FORWARDED,
  // The peer is a trusted proxy (in the TRUST_PROXY app) but the Origin is the proxy's inner address.
  'inner address behind a proxy': { ...FORWARDED, Origin: 'http://10.0.0.5:3000' },
};

const ACCEPTED: Record<string, Headers> = {
  'Origin is the own LAN address': SAME_ORIGIN,
  'Origin is the own localhost': LOCALHOST,
  'Sec-Fetch-Site: same-origin': SEC_FETCH_SAME,
};

function withHeaders(request: Test, headers: Headers): Test {
  for (const [name, value] of Object.entries(headers)) request.set(name, value);
  return request;
}

const status = (response: Response) => ({ status: response.status, body: response.body });
const setCookies = (response: Response): string[] => ([] as string[]).concat(response.headers['set-cookie'] ?? []);

describe('same-origin writes: admin console and host application (review items 5, 7)', () => {
  let t: TestApp;
  let proxied: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    // Supertest connects over loopback: here the peer is a trusted proxy.
    proxied = await startTestApp({ TRUST_PROXY: 'loopback' });
  });
  afterAll(async () => {
    await t?.close();
    await proxied?.close();
  });

  describe('admin console login', () => {
    const adminLogin = (app: TestApp, username: string, headers: Headers) =>
      withHeaders(app.http.post('/app/admin/auth/login').set(...CSRF), headers).send({
        username,
        password: ADMIN_PASSWORD,
      });

    it.each(Object.entries(ACCEPTED))('signs in when %s', async (_name, headers) => {
      const username = await createAdmin(t, 'viewer');
      const response = await adminLogin(t, username, headers);
      expect(okData<{ admin: { username: string } }>(response).admin.username).toBe(username);
      expect(setCookies(response)[0]).toMatch(/^ADMIN_SID=[A-Za-z0-9_-]{43};/);
    });

    it('honours X-Forwarded-Proto and X-Forwarded-Host only from a TRUST_PROXY peer', async () => {
      const username = await createAdmin(proxied, 'viewer');
      const response = await adminLogin(proxied, username, FORWARDED);
      expect(okData<{ admin: { username: string } }>(response).admin.username).toBe(username);
    });

    it.each(Object.entries(CROSS_SITE))('refuses %s with 403 and no session', async (name, headers) => {
      const app = name === 'inner address behind a proxy' ? proxied : t;
      const username = await createAdmin(app, 'viewer');
      const response = await adminLogin(app, username, headers);
      expect(status(response)).toEqual({
        status: 403,
        body: { code: 1004, msg: 'Origin: not a trusted origin for the admin console', data: null },
      });
      expect(setCookies(response)).toEqual([]);
    });
  });

  describe('host application', () => {
    it.each(Object.entries(ACCEPTED))('signs up, logs in and takes a token when %s', async (_name, headers) => {
      const phone = randomPhone();
      const code = await freshCode(t, phone, 'signup');
      const signup = await withHeaders(t.http.post('/app/auth/signup'), headers).send({
        phone,
        code,
        password: HOST_PASSWORD,
        nickname: 'Same Origin',
      });
      expect(okData<{ account: { phone: string } }>(signup).account.phone).toBe(phone);
      const login = await withHeaders(t.http.post('/app/auth/login'), headers).send({ phone, password: HOST_PASSWORD });
      okData(login);
      const token = await withHeaders(t.http.post('/app/auth/token'), headers)
        .set('Cookie', hostCookie(login))
        .send({});
      expect(okData<{ token: string }>(token).token).toEqual(expect.any(String));
    });

    it('honours X-Forwarded-Proto and X-Forwarded-Host only from a TRUST_PROXY peer', async () => {
      const account = await signUp(proxied);
      const login = await withHeaders(proxied.http.post('/app/auth/login'), FORWARDED).send({
        phone: account.phone,
        password: HOST_PASSWORD,
      });
      okData(login);
      const token = await withHeaders(proxied.http.post('/app/auth/token'), FORWARDED)
        .set('Cookie', hostCookie(login))
        .send({});
      okData(token);
    });

    it.each(Object.entries(CROSS_SITE))('refuses %s with 403, changing nothing', async (name, headers) => {
      const app = name === 'inner address behind a proxy' ? proxied : t;
      const refusal = {
        status: 403,
        body: { code: 1004, msg: 'Origin: not a trusted origin for the host application', data: null },
      };
      // Sign-up: no account, and the code is still unused.
      const phone = randomPhone();
      const code = await freshCode(app, phone, 'signup');
      const signup = await withHeaders(app.http.post('/app/auth/signup'), headers).send({
        phone,
        code,
        password: HOST_PASSWORD,
        nickname: 'Cross Site',
      });
      expect(status(signup)).toEqual(refusal);
      expect(setCookies(signup)).toEqual([]);
      expect((await passwordLogin(app, phone)).status).toBe(401);

      // Login: no session; logout with the cookie: the session survives.
      const account = await signUp(app);
      const login = await withHeaders(app.http.post('/app/auth/login'), headers).send({
        phone: account.phone,
        password: HOST_PASSWORD,
      });
      expect(status(login)).toEqual(refusal);
      expect(setCookies(login)).toEqual([]);
      const logout = await withHeaders(app.http.post('/app/auth/logout'), headers).set('Cookie', account.cookie);
      expect(status(logout)).toEqual(refusal);
      expect((await account.get('/app/auth/me')).body.code).toBe(0);
    });
  });
});
