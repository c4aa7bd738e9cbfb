// No endpoint that takes the SDK secret offers CORS (review item 6), nor do the console and the
// host application (item 7). The host-secret endpoints are enumerated twice, independently: from
// the served OpenAPI document (security scheme `sdk-secret`) and from the controllers' guard
// metadata; the two must agree, so a new endpoint cannot be left out of either.
import { routesGuardedBy } from '../../src/common/http/guarded-routes';
import { SecretGuard } from '../../src/auth/secret.guard';
import { TestApp, startTestApp } from '../helpers/test-app';

const LISTED = 'https://app.example.com';

interface Operation {
  security?: Record<string, string[]>[];
}

/** `[METHOD, path]` of every documented operation whose security names `scheme`. */
function operationsSecuredBy(document: { paths: Record<string, Record<string, Operation>> }, scheme: string) {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, operation]) => (operation.security ?? []).some((entry) => scheme in entry))
      .map(([method, operation]) => [method.toUpperCase(), path.replace(/\{(\w+)\}/g, ':$1'), operation] as const),
  );
}

describe('CORS: never for the SDK secret, the console or the host application (review items 6, 7)', () => {
  let t: TestApp;
  let document: { paths: Record<string, Record<string, Operation>> };
  beforeAll(async () => {
    t = await startTestApp({ CORS_ORIGINS: `${LISTED},http://localhost:5173` });
    document = (await t.http.get('/openapi.json')).body;
  });
  afterAll(() => t.close());

  const preflight = (path: string, method: string, origin = LISTED) =>
    t.http
      .options(path)
      .set('Origin', origin)
      .set('Access-Control-Request-Method', method)
      .set('Access-Control-Request-Headers', 'authorization,content-type');

  const corsHeaders = (headers: Record<string, string>) =>
    Object.keys(headers).filter((name) => name.startsWith('access-control-'));

  it('documents exactly the routes SecretGuard protects as host-secret endpoints', () => {
    const documented = operationsSecuredBy(document, 'sdk-secret').map(([, path]) => path);
    const guarded = routesGuardedBy(t.app, SecretGuard);
    expect(guarded).toContain('/app/sdk/users/status');
    expect(guarded).toContain('/app/sdk/users/revoke-tokens');
    expect([...new Set(documented)].sort()).toEqual(guarded);
  });

  it('answers no preflight and sets no CORS header on any host-secret endpoint', async () => {
    const secured = operationsSecuredBy(document, 'sdk-secret');
    expect(secured.length).toBeGreaterThanOrEqual(4);
    for (const [method, path] of secured) {
      for (const variant of [path, `${path}/`, path.toUpperCase()]) {
        const reply = await preflight(variant, method);
        expect({ variant, status: reply.status, cors: corsHeaders(reply.headers) }).toEqual({
          variant,
          status: 404,
          cors: [],
        });
      }
      // The request itself, as a page of a listed origin would send it: refused, and unreadable.
      const actual = await t.http
        .post(path)
        .set('Origin', LISTED)
        .set('Authorization', 'Bearer not-the-secret')
        .send({});
      expect({ path, cors: corsHeaders(actual.headers), code: actual.body.code }).toEqual({
        path,
        cors: [],
        code: 1001,
      });
    }
  });

  it('still offers every IM-token endpoint to a listed origin', async () => {
    const secured = operationsSecuredBy(document, 'im-token');
    expect(secured.length).toBeGreaterThan(10);
    for (const [method, path] of secured) {
      const concrete = path.replace(/:\w+/g, '1');
      const reply = await preflight(concrete, method);
      expect({ path, status: reply.status, origin: reply.headers['access-control-allow-origin'] }).toEqual({
        path,
        status: 204,
        origin: LISTED,
      });
    }
  });

  it('answers no preflight for the host application or the console: they are same-origin pages', async () => {
    for (const path of ['/app/auth/login', '/app/auth/signup', '/app/auth/token', '/app/admin/auth/login']) {
      const reply = await preflight(path, 'POST');
      expect({ path, status: reply.status, cors: corsHeaders(reply.headers) }).toEqual({ path, status: 404, cors: [] });
    }
  });
});
