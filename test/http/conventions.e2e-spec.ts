// Black-box tests of the shared HTTP conventions (spec 4 envelope, 7 errors): envelope, Cache-Control,
// status codes, unknown routes, malformed/oversized/non-JSON bodies and internal faults.
import { IncomingHttpHeaders, Server, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import type { Response } from 'supertest';
import { QueryFailedError } from 'typeorm';
import { UsersRepository } from '../../src/users/users.repository';
import {
  IssuedUser,
  TEST_SECRETS,
  TestApp,
  bearer,
  hostAuth,
  issueUser,
  randomUserId,
  startTestApp,
  uuidV4,
} from '../helpers/test-app';
import { clientErrorBody } from '../helpers/factories';

const CLIENT_ERRORS = '/app/sdk/client-errors';
const TOKEN = '/app/sdk/token';
const MIB = 1024 * 1024;

type Body = Record<string, unknown>;

interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: unknown;
}

/** A client error report: the one body every convention probe sends. */
function report(user: IssuedUser, over: Body = {}): Body {
  return clientErrorBody(user, {
    device_id: `dev-${uuidV4().slice(0, 8)}`,
    platform: 'ios',
    severity: 'serious',
    error_code: 'http.conventions',
    message: 'conventions probe',
    operation: 'probe',
    context: { probe: true },
    ...over,
  });
}

/** A JSON text of exactly `bytes` UTF-8 bytes: the report plus an ignored padding field. */
function paddedJson(body: Body, bytes: number): string {
  const base = JSON.stringify({ ...body, zz_padding: '' });
  const missing = bytes - Buffer.byteLength(base);
  if (missing < 0) throw new Error('body already too large');
  const text = JSON.stringify({ ...body, zz_padding: 'p'.repeat(missing) });
  expect(Buffer.byteLength(text)).toBe(bytes);
  return text;
}

/** The envelope of spec 4 on a failure: exactly code/msg/data, data null, a non-zero code, no-store. */
function expectFailureEnvelope(
  status: number,
  headers: IncomingHttpHeaders | Record<string, string>,
  body: unknown,
): void {
  expect(headers['cache-control']).toBe('no-store');
  expect(String(headers['content-type'])).toMatch(/^application\/json/);
  expect(body).toEqual({ code: expect.any(Number), msg: expect.any(String), data: null });
  const envelope = body as { code: number; msg: string };
  expect(Number.isInteger(envelope.code)).toBe(true);
  expect(envelope.code).not.toBe(0);
  expect(envelope.msg).not.toBe('ok');
  expect(envelope.msg.length).toBeGreaterThan(0);
  expect(status).toBeGreaterThanOrEqual(200);
}

function expectBusinessError(
  res: { status: number; headers: IncomingHttpHeaders | Record<string, string>; body: unknown },
  code: number,
): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status: 200,
    body: { code, msg: expect.any(String), data: null },
  });
  expectFailureEnvelope(res.status, res.headers, res.body);
}

describe('HTTP conventions (spec 4, 7, black box)', () => {
  let t: TestApp;
  let u: IssuedUser;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp();
    const server = t.app.getHttpServer() as Server;
    if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  beforeEach(async () => {
    t.clock.set(Math.floor(Date.now() / 60_000) * 60_000 + 1000);
    u = await issueUser(t);
  });

  /** A request by hand, for bodies supertest would rewrite (no Content-Type, chunked, compressed). */
  function raw(method: string, path: string, headers: Record<string, string>, chunks: Buffer[]): Promise<RawReply> {
    return new Promise<RawReply>((resolve, reject) => {
      let answered = false;
      const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
        answered = true;
        const parts: Buffer[] = [];
        res.on('data', (part: Buffer) => parts.push(part));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          let json: unknown = undefined;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      });
      req.on('error', (error) => {
        // The server may answer and close before the whole body is written.
        if (!answered) reject(error);
      });
      for (const chunk of chunks) req.write(chunk);
      req.end();
    });
  }

  const sendText = (path: string, contentType: string, text: string, auth: [string, string]): Promise<Response> =>
    t.http
      .post(path)
      .set(...auth)
      .set('Content-Type', contentType)
      .send(text);

  describe('envelope and Cache-Control', () => {
    it('answers a success with exactly {code: 0, msg: "ok", data}, JSON and no-store', async () => {
      const res = await t.http
        .post(CLIENT_ERRORS)
        .set(...bearer(u.token))
        .send(report(u));
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(Object.keys(res.body).sort()).toEqual(['code', 'data', 'msg']);
      expect(res.body).toMatchObject({ code: 0, msg: 'ok' });
      expect(res.body.data).not.toBeNull();
    });

    it('answers the host token endpoint with the envelope and no-store', async () => {
      const res = await t.http
        .post(TOKEN)
        .set(...hostAuth())
        .send({ user_id: randomUserId(), nickname: 'Env' });
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(Object.keys(res.body).sort()).toEqual(['code', 'data', 'msg']);
      expect(res.body).toMatchObject({ code: 0, msg: 'ok' });
    });

    it('answers business errors with HTTP 200, the code, data null and no-store (1001, 1101, 1102, 1004)', async () => {
      expectBusinessError(await t.http.post(TOKEN).send({ user_id: randomUserId(), nickname: 'x' }), 1001);
      expectBusinessError(await t.http.post(CLIENT_ERRORS).send(report(u)), 1101);
      expectBusinessError(
        await t.http
          .post(CLIENT_ERRORS)
          .set(...bearer('garbage'))
          .send(report(u)),
        1102,
      );
      expectBusinessError(
        await t.http
          .post(CLIENT_ERRORS)
          .set(...bearer(u.token))
          .send(report(u, { platform: 'web' })),
        1004,
      );
      expectBusinessError(
        await t.http
          .post(TOKEN)
          .set(...hostAuth())
          .send({ user_id: randomUserId() }),
        1004,
      );
    });

    it('answers an expired token with HTTP 200, 1103 and no-store', async () => {
      const fresh = await issueUser(t);
      t.clock.advance(8 * 24 * 3600 * 1000);
      expectBusinessError(
        await t.http
          .post(CLIENT_ERRORS)
          .set(...bearer(fresh.token))
          .send(report(fresh)),
        1103,
      );
    });
  });

  describe('unknown routes', () => {
    it.each([
      ['GET', '/'],
      ['GET', '/does-not-exist'],
      ['POST', '/app/sdk/does-not-exist'],
      ['GET', '/app/sdk/does-not-exist?x=1'],
      ['PUT', '/app/sdk/client-errors/extra'],
      ['DELETE', '/app/sdk/nope/deeper'],
    ])(
      'answers a bodyless %s %s (no Content-Type) with HTTP 404 and the envelope with no-store',
      async (method, path) => {
        const res = await raw(method, path, { Authorization: `Bearer ${u.token}` }, []);
        expect(res.status).toBe(404);
        expectFailureEnvelope(res.status, res.headers, res.json);
      },
    );

    it.each(['text/plain', 'application/x-www-form-urlencoded'])(
      'answers POST on an unknown route with a %s body with 404',
      async (contentType) => {
        const res = await sendText('/app/sdk/does-not-exist', contentType, 'a=1', bearer(u.token));
        expect(res.status).toBe(404);
        expectFailureEnvelope(res.status, res.headers, res.body);
      },
    );

    it('answers POST on an unknown route with a JSON body with 404', async () => {
      const res = await sendText('/app/sdk/does-not-exist', 'application/json', '{"a":1}', bearer(u.token));
      expect(res.status).toBe(404);
      expectFailureEnvelope(res.status, res.headers, res.body);
    });

    it('answers an unknown route with 404 and the envelope even without credentials', async () => {
      const res = await t.http.post('/app/sdk/nothing-here').send({ a: 1 });
      expect(res.status).toBe(404);
      expectFailureEnvelope(res.status, res.headers, res.body);
    });

    it.each([
      ['GET', CLIENT_ERRORS],
      ['DELETE', CLIENT_ERRORS],
      ['PUT', TOKEN],
    ])(
      'answers a bodyless %s on POST-only %s (no Content-Type) with 404/405 and the envelope',
      async (method, path) => {
        const res = await raw(method, path, { Authorization: `Bearer ${u.token}` }, []);
        expect([404, 405]).toContain(res.status);
        expectFailureEnvelope(res.status, res.headers, res.json);
      },
    );
  });

  describe('malformed JSON and non-object bodies are 1004', () => {
    const malformed: Array<[string, string]> = [
      ['a truncated object', '{"event_id":'],
      ['a missing value', '{"a":}'],
      ['single quotes', "{'a':1}"],
      ['a trailing comma', '{"a":1,}'],
      ['a bare word', 'nul'],
      ['two objects', '{"a":1}{"b":2}'],
      ['an unterminated string', '{"a":"b}'],
    ];

    it.each(malformed)('refuses %s on client-errors with 1004 (HTTP 200, envelope, no-store)', async (_label, text) => {
      expectBusinessError(await sendText(CLIENT_ERRORS, 'application/json', text, bearer(u.token)), 1004);
    });

    it.each(malformed)('refuses %s on the token endpoint with 1004', async (_label, text) => {
      expectBusinessError(await sendText(TOKEN, 'application/json', text, hostAuth()), 1004);
    });

    it.each([
      ['a top-level array of a valid report', (b: Body) => JSON.stringify([b])],
      ['a top-level empty array', () => '[]'],
      ['a top-level string', () => '"hello"'],
      ['a top-level number', () => '42'],
      ['a top-level null', () => 'null'],
      ['a top-level true', () => 'true'],
    ])('refuses %s with 1004', async (_label, build) => {
      const text = build(report(u));
      expectBusinessError(await sendText(CLIENT_ERRORS, 'application/json', text, bearer(u.token)), 1004);
    });

    it('refuses a top-level array on the token endpoint with 1004', async () => {
      const text = JSON.stringify([{ user_id: randomUserId(), nickname: 'Arr' }]);
      expectBusinessError(await sendText(TOKEN, 'application/json', text, hostAuth()), 1004);
    });

    it('refuses an empty JSON body with 1004', async () => {
      const res = await raw(
        'POST',
        CLIENT_ERRORS,
        { Authorization: `Bearer ${u.token}`, 'Content-Type': 'application/json', 'Content-Length': '0' },
        [],
      );
      expectBusinessError({ status: res.status, headers: res.headers, body: res.json }, 1004);
    });
  });

  describe('Content-Type', () => {
    it('accepts application/json; charset=utf-8', async () => {
      const res = await sendText(
        CLIENT_ERRORS,
        'application/json; charset=utf-8',
        JSON.stringify(report(u)),
        bearer(u.token),
      );
      expect(res.body.code).toBe(0);
      expect(res.headers['cache-control']).toBe('no-store');
    });

    it.each([
      'text/plain',
      'text/plain; charset=utf-8',
      'application/xml',
      'application/octet-stream',
      'application/x-www-form-urlencoded',
    ])('refuses a valid JSON report sent as %s with 1004 and stores nothing', async (contentType) => {
      const body = report(u);
      const res = await sendText(CLIENT_ERRORS, contentType, JSON.stringify(body), bearer(u.token));
      expectBusinessError(res, 1004);
      const again = await t.http
        .post(CLIENT_ERRORS)
        .set(...bearer(u.token))
        .send(body);
      expect(again.body).toEqual({ code: 0, msg: 'ok', data: { event_id: body.event_id, occurrence_count: 1 } });
    });

    it('refuses a form-encoded report with 1004', async () => {
      const body = report(u);
      const form = Object.entries(body)
        .map(
          ([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`,
        )
        .join('&');
      expectBusinessError(
        await sendText(CLIENT_ERRORS, 'application/x-www-form-urlencoded', form, bearer(u.token)),
        1004,
      );
    });

    it('refuses a multipart report with 1004', async () => {
      let req = t.http.post(CLIENT_ERRORS).set(...bearer(u.token));
      for (const [k, v] of Object.entries(report(u))) req = req.field(k, typeof v === 'string' ? v : JSON.stringify(v));
      expectBusinessError(await req, 1004);
    });

    it('refuses a valid JSON report without any Content-Type with 1004', async () => {
      const res = await raw('POST', CLIENT_ERRORS, { Authorization: `Bearer ${u.token}` }, [
        Buffer.from(JSON.stringify(report(u))),
      ]);
      expectBusinessError({ status: res.status, headers: res.headers, body: res.json }, 1004);
    });

    it('refuses a token request sent as text/plain with 1004', async () => {
      const text = JSON.stringify({ user_id: randomUserId(), nickname: 'Txt' });
      expectBusinessError(await sendText(TOKEN, 'text/plain', text, hostAuth()), 1004);
    });

    it('answers an unsupported JSON charset with the 1004 envelope, not a bare 415', async () => {
      const res = await sendText(
        CLIENT_ERRORS,
        'application/json; charset=latin1',
        JSON.stringify(report(u)),
        bearer(u.token),
      );
      expectBusinessError(res, 1004);
    });

    it('answers an unknown Content-Encoding with the 1004 envelope, not a bare 415', async () => {
      const res = await raw(
        'POST',
        CLIENT_ERRORS,
        { Authorization: `Bearer ${u.token}`, 'Content-Type': 'application/json', 'Content-Encoding': 'x-unknown' },
        [Buffer.from(JSON.stringify(report(u)))],
      );
      expectBusinessError({ status: res.status, headers: res.headers, body: res.json }, 1004);
    });

    it.each(['gzip', 'deflate'])('answers a corrupt %s body with the 1004 envelope, not a 500', async (encoding) => {
      const res = await raw(
        'POST',
        CLIENT_ERRORS,
        { Authorization: `Bearer ${u.token}`, 'Content-Type': 'application/json', 'Content-Encoding': encoding },
        [Buffer.from('this is not compressed at all')],
      );
      expectBusinessError({ status: res.status, headers: res.headers, body: res.json }, 1004);
    });
  });

  describe('body size limit (1 MiB)', () => {
    it('accepts a valid report of exactly 1 MiB (unknown padding field ignored)', async () => {
      const body = report(u);
      const res = await sendText(CLIENT_ERRORS, 'application/json', paddedJson(body, MIB), bearer(u.token));
      expect(res.body).toEqual({ code: 0, msg: 'ok', data: { event_id: body.event_id, occurrence_count: 1 } });
    });

    it('refuses a report of 1 MiB + 1 byte with 1004 and stores nothing', async () => {
      const body = report(u);
      const res = await sendText(CLIENT_ERRORS, 'application/json', paddedJson(body, MIB + 1), bearer(u.token));
      expectBusinessError(res, 1004);
      // Nothing was stored: the same event is new afterwards.
      const again = await t.http
        .post(CLIENT_ERRORS)
        .set(...bearer(u.token))
        .send(body);
      expect(again.body).toEqual({ code: 0, msg: 'ok', data: { event_id: body.event_id, occurrence_count: 1 } });
    });

    it('refuses an oversized body that is not even JSON with 1004 (refused before parsing)', async () => {
      const res = await sendText(CLIENT_ERRORS, 'application/json', `{${'x'.repeat(MIB + 10)}`, bearer(u.token));
      expectBusinessError(res, 1004);
    });

    it('refuses an oversized body on the host token endpoint with 1004', async () => {
      const text = paddedJson({ user_id: randomUserId(), nickname: 'Big' }, MIB + 1);
      expectBusinessError(await sendText(TOKEN, 'application/json', text, hostAuth()), 1004);
    });

    it('refuses an oversized body sent chunked without Content-Length with 1004', async () => {
      const text = paddedJson(report(u), 2 * MIB);
      const buffer = Buffer.from(text);
      const chunks: Buffer[] = [];
      for (let i = 0; i < buffer.length; i += 64 * 1024) chunks.push(buffer.subarray(i, i + 64 * 1024));
      const res = await raw(
        'POST',
        CLIENT_ERRORS,
        { Authorization: `Bearer ${u.token}`, 'Content-Type': 'application/json' },
        chunks,
      );
      expectBusinessError({ status: res.status, headers: res.headers, body: res.json }, 1004);
    });

    it('refuses a gzip body that inflates past 1 MiB with 1004', async () => {
      const compressed = gzipSync(Buffer.from(paddedJson(report(u), 4 * MIB)));
      expect(compressed.length).toBeLessThan(MIB);
      const res = await raw(
        'POST',
        CLIENT_ERRORS,
        {
          Authorization: `Bearer ${u.token}`,
          'Content-Type': 'application/json',
          'Content-Encoding': 'gzip',
          'Content-Length': String(compressed.length),
        },
        [compressed],
      );
      expectBusinessError({ status: res.status, headers: res.headers, body: res.json }, 1004);
    });
  });

  describe('unexpected faults', () => {
    it('answers an internal fault with HTTP 500, code 1500, no stack or SQL, and no-store', async () => {
      const other = await startTestApp();
      try {
        const alice = await issueUser(other);
        // A failing statement the service cannot have expected (not an outage, which is a 503).
        const fault = jest
          .spyOn(other.app.get(UsersRepository), 'findAuthState')
          .mockRejectedValue(
            new QueryFailedError('SELECT token_version FROM users WHERE id = ?', [alice.id], new Error('syntax error')),
          );
        try {
          const res = await other.http
            .post(CLIENT_ERRORS)
            .set(...bearer(alice.token))
            .send(report(alice));
          expect(res.status).toBe(500);
          expect(res.headers['cache-control']).toBe('no-store');
          expect(res.body).toEqual({ code: 1500, msg: expect.any(String), data: null });
          const msg = res.body.msg as string;
          expect(msg).not.toMatch(
            /SELECT|INSERT|UPDATE|client_errors|sqlite|mysql|QueryFailed|TypeORM|DataSource|Connection/i,
          );
          expect(msg).not.toMatch(/\bat .+:\d+|\.ts\b|\.js\b|Error:/);
          expect(msg).not.toContain(TEST_SECRETS.JWT_SECRET);
          expect(msg).not.toContain(alice.token);
        } finally {
          fault.mockRestore();
        }
      } finally {
        await other.close();
      }
    });
  });
});
