// Black-box tests of POST/GET /app/sdk/rtc/room-callback, written from the spec (4.5, 5 rule 9, 6 rule 4, 7, 8).
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { createServer, request as httpRequest, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { TEST_SECRETS, TestApp, startTestApp } from '../helpers/test-app';

const PATH = '/app/sdk/rtc/room-callback';
const MAX_BODY = 65536;
const MINUTE = 60_000;

/** Sign = Base64(HMAC-SHA256(raw body bytes, callback secret)). */
function sign(raw: string | Buffer, secret: string = TEST_SECRETS.RTC_CALLBACK_SECRET): string {
  return createHmac('sha256', secret).update(raw).digest('base64');
}

interface RoomRow {
  event_type: number;
  room_id: string;
  provider_user_id: string | null;
  event_ms: number;
}

interface PostOptions {
  /** null = omit the header; undefined = correct signature of the raw body. */
  sign?: string | null;
  /** null = omit the header; undefined = the configured app ID. */
  appId?: string | null;
  contentType?: string;
}

type Json = Record<string, unknown>;

const randomRoomId = (): number => randomInt(1_000_000, 4_294_967_295);
const randomProviderUser = (): string => `rtc_${randomBytes(6).toString('hex')}`;

describe('POST /app/sdk/rtc/room-callback (spec 4.5, 5.9, 6.4, 7, 8)', () => {
  let t: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());
  // Server time held still at "now" for every test, so CallbackTs is deterministic.
  beforeEach(() => t.clock.set(Date.now()));

  const now = (): number => t.clock.now();

  /** Sends `raw` as-is (superagent writes a string as its UTF-8 bytes; a Buffer would be re-serialised as JSON). */
  function post(raw: string, options: PostOptions = {}) {
    const req = t.http.post(PATH).set('Content-Type', options.contentType ?? 'application/json');
    const appId = options.appId === undefined ? TEST_SECRETS.RTC_SDK_APP_ID : options.appId;
    const signature = options.sign === undefined ? sign(raw) : options.sign;
    if (appId !== null) req.set('SdkAppId', appId);
    if (signature !== null) req.set('Sign', signature);
    return req.send(raw);
  }

  const postJson = (body: unknown, options: PostOptions = {}) => post(JSON.stringify(body), options);

  /** A valid room event; 102 carries no UserId unless given. */
  function roomEvent(type: number, info: Json = {}, top: Json = {}): Json {
    const base: Json = { RoomId: randomRoomId(), EventMsTs: now() - 1000 };
    if (type !== 102) base.UserId = randomProviderUser();
    return { EventGroupId: 1, EventType: type, CallbackTs: now(), EventInfo: { ...base, ...info }, ...top };
  }

  const roomOf = (event: Json): string => String((event.EventInfo as Json).RoomId);

  async function rowsForRoom(roomId: string | number): Promise<RoomRow[]> {
    const rows: Array<Record<string, unknown>> = await db.query(
      'SELECT event_type, room_id, provider_user_id, event_ms FROM rtc_room_events WHERE room_id = ? ORDER BY event_ms, event_type',
      [String(roomId)],
    );
    return rows.map((r) => ({
      event_type: Number(r.event_type),
      room_id: String(r.room_id),
      provider_user_id:
        r.provider_user_id === null || r.provider_user_id === undefined ? null : String(r.provider_user_id),
      event_ms: Number(r.event_ms),
    }));
  }

  function expectAccepted(response: Response): void {
    expect({ status: response.status, body: response.body as unknown }).toEqual({ status: 200, body: { code: 0 } });
    expect(JSON.parse(response.text)).toEqual({ code: 0 });
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['cache-control']).toBe('no-store');
  }

  function expectRefused(response: Response): void {
    expect({ status: response.status, body: response.body as unknown }).toEqual({ status: 403, body: { code: 1 } });
    expect(JSON.parse(response.text)).toEqual({ code: 1 });
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['cache-control']).toBe('no-store');
  }

  /** A raw body of exactly `bytes` bytes for an otherwise valid 103 event, padded inside EventInfo. */
  function paddedBody(bytes: number, event: Json, padChar = 'x'): string {
    const withPad = (pad: string) =>
      JSON.stringify({ ...event, EventInfo: { ...(event.EventInfo as Json), Pad: pad } });
    const missing = bytes - Buffer.byteLength(withPad(''));
    const charBytes = Buffer.byteLength(padChar);
    const pad = padChar.repeat(Math.floor(missing / charBytes)) + 'x'.repeat(missing % charBytes);
    const raw = withPad(pad);
    expect(Buffer.byteLength(raw)).toBe(bytes);
    return raw;
  }

  describe('SdkAppId and Sign headers (4.5, 5.9)', () => {
    it('refuses a missing SdkAppId', async () => {
      const event = roomEvent(103);
      expectRefused(await postJson(event, { appId: null }));
      expect(await rowsForRoom(roomOf(event))).toEqual([]);
    });

    it.each([['1400123457'], ['01400123456'], ['1400123456x'], [''], ['other']])(
      'refuses SdkAppId %j',
      async (appId) => {
        const event = roomEvent(103);
        expectRefused(await postJson(event, { appId }));
        expect(await rowsForRoom(roomOf(event))).toEqual([]);
      },
    );

    it('refuses a missing Sign', async () => {
      const event = roomEvent(103);
      expectRefused(await postJson(event, { sign: null }));
      expect(await rowsForRoom(roomOf(event))).toEqual([]);
    });

    it('refuses an empty Sign', async () => {
      const event = roomEvent(103);
      expectRefused(await postJson(event, { sign: '' }));
      expect(await rowsForRoom(roomOf(event))).toEqual([]);
    });

    it('refuses a Sign made with another secret, with the SDK secret or with the JWT secret', async () => {
      const event = roomEvent(103);
      const raw = JSON.stringify(event);
      for (const secret of ['wrong-secret', TEST_SECRETS.SDK_SECRET, TEST_SECRETS.JWT_SECRET]) {
        expectRefused(await post(raw, { sign: sign(raw, secret) }));
      }
      expect(await rowsForRoom(roomOf(event))).toEqual([]);
    });

    it('refuses the SDK secret or an IM-style bearer in place of the signature', async () => {
      const event = roomEvent(103);
      const raw = JSON.stringify(event);
      const response = await t.http
        .post(PATH)
        .set('Content-Type', 'application/json')
        .set('SdkAppId', TEST_SECRETS.RTC_SDK_APP_ID)
        .set('Authorization', `Bearer ${TEST_SECRETS.SDK_SECRET}`)
        .send(raw);
      expectRefused(response);
      expectRefused(await post(raw, { sign: TEST_SECRETS.RTC_CALLBACK_SECRET }));
      expect(await rowsForRoom(roomOf(event))).toEqual([]);
    });

    it('refuses a Sign in hex instead of Base64', async () => {
      const raw = JSON.stringify(roomEvent(103));
      const hex = createHmac('sha256', TEST_SECRETS.RTC_CALLBACK_SECRET).update(raw).digest('hex');
      expectRefused(await post(raw, { sign: hex }));
    });

    it('refuses a Sign whose case was changed', async () => {
      const raw = JSON.stringify(roomEvent(103));
      const good = sign(raw);
      const flipped = good.replace(/[a-zA-Z]/, (c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase()));
      expect(flipped).not.toBe(good);
      expectRefused(await post(raw, { sign: flipped }));
    });

    it('refuses a Sign computed over a body that differs only in whitespace', async () => {
      const event = roomEvent(103);
      const compact = JSON.stringify(event);
      const spaced = JSON.stringify(event, null, 1);
      expectRefused(await post(spaced, { sign: sign(compact) }));
      expectRefused(await post(compact, { sign: sign(spaced) }));
      expectRefused(await post(`${compact} `, { sign: sign(compact) }));
      expectRefused(await post(`${compact}\n`, { sign: sign(compact) }));
      expect(await rowsForRoom(roomOf(event))).toEqual([]);
    });

    it('refuses a Sign computed over a body with reordered keys (same JSON value)', async () => {
      const event = roomEvent(103);
      const reordered = JSON.stringify({
        EventInfo: event.EventInfo,
        CallbackTs: event.CallbackTs,
        EventType: event.EventType,
        EventGroupId: event.EventGroupId,
      });
      expectRefused(await post(reordered, { sign: sign(JSON.stringify(event)) }));
      expect(await rowsForRoom(roomOf(event))).toEqual([]);
    });

    it('refuses a signed body that was tampered with after signing', async () => {
      const event = roomEvent(103);
      const raw = JSON.stringify(event);
      const other = randomRoomId();
      const tampered = raw.replace(String((event.EventInfo as Json).RoomId), String(other));
      expectRefused(await post(tampered, { sign: sign(raw) }));
      expect(await rowsForRoom(other)).toEqual([]);
    });

    it('refuses a correct Sign with characters outside the Base64 alphabet inserted', async () => {
      const raw = JSON.stringify(roomEvent(103));
      const good = sign(raw);
      expectRefused(await post(raw, { sign: `${good.slice(0, 10)}*${good.slice(10)}` }));
      expectRefused(await post(raw, { sign: `${good}!` }));
    });

    it('refuses a Sign longer than 128 chars, even when it starts with the correct signature', async () => {
      const event = roomEvent(103);
      const raw = JSON.stringify(event);
      const good = sign(raw);
      expect(good).toHaveLength(44);
      expectRefused(await post(raw, { sign: good + '='.repeat(129 - good.length) }));
      expectRefused(await post(raw, { sign: good + 'A'.repeat(129 - good.length) }));
      expectRefused(await post(raw, { sign: 'A'.repeat(129) }));
      expectRefused(await post(raw, { sign: 'A'.repeat(5000) }));
      expect(await rowsForRoom(roomOf(event))).toEqual([]);
    });

    it('refuses a wrong Sign of exactly 128 chars with 403 {"code":1} (no crash)', async () => {
      const raw = JSON.stringify(roomEvent(103));
      expectRefused(await post(raw, { sign: 'B'.repeat(128) }));
    });

    it('refuses the Base64URL form of the signature (Sign is Base64)', async () => {
      // find an event whose signature contains a character that differs between Base64 and Base64URL
      let raw = '';
      let good = '';
      for (let i = 0; i < 200 && !/[+/]/.test(good); i++) {
        raw = JSON.stringify(roomEvent(103));
        good = sign(raw);
      }
      expect(good).toMatch(/[+/]/);
      const urlForm = good.replace(/\+/g, '-').replace(/\//g, '_');
      expectRefused(await post(raw, { sign: urlForm }));
    });

    it('refuses the right signature without Base64 padding', async () => {
      const raw = JSON.stringify(roomEvent(103));
      const good = sign(raw);
      expect(good.endsWith('=')).toBe(true);
      expectRefused(await post(raw, { sign: good.replace(/=+$/, '') }));
    });
  });

  describe('CallbackTs window of 5 minutes against server time (4.5, 5.9, 8)', () => {
    const FOUR_59 = 4 * MINUTE + 59_000;
    const FIVE_01 = 5 * MINUTE + 1000;

    it('accepts a CallbackTs 4:59 in the past', async () => {
      const fixed = Date.now();
      t.clock.set(fixed);
      const event = roomEvent(103, {}, { CallbackTs: fixed - FOUR_59 });
      expectAccepted(await postJson(event));
      expect(await rowsForRoom(roomOf(event))).toHaveLength(1);
    });

    it('accepts a CallbackTs 4:59 in the future', async () => {
      const fixed = Date.now();
      t.clock.set(fixed);
      const event = roomEvent(103, {}, { CallbackTs: fixed + FOUR_59 });
      expectAccepted(await postJson(event));
      expect(await rowsForRoom(roomOf(event))).toHaveLength(1);
    });

    it('refuses a CallbackTs 5:01 in the past', async () => {
      const fixed = Date.now();
      t.clock.set(fixed);
      const event = roomEvent(103, {}, { CallbackTs: fixed - FIVE_01 });
      expectRefused(await postJson(event));
      expect(await rowsForRoom(roomOf(event))).toEqual([]);
    });

    it('refuses a CallbackTs 5:01 in the future', async () => {
      const fixed = Date.now();
      t.clock.set(fixed);
      const event = roomEvent(103, {}, { CallbackTs: fixed + FIVE_01 });
      expectRefused(await postJson(event));
      expect(await rowsForRoom(roomOf(event))).toEqual([]);
    });

    it('judges the window by the server clock, not by the wall clock', async () => {
      const wall = Date.now();
      const event = roomEvent(103, {}, { CallbackTs: wall });
      const raw = JSON.stringify(event);
      t.clock.set(wall + 10 * MINUTE);
      expectRefused(await post(raw));
      t.clock.set(wall - 10 * MINUTE);
      expectRefused(await post(raw));
      t.clock.set(wall + 4 * MINUTE);
      expectAccepted(await post(raw));
      expect(await rowsForRoom(roomOf(event))).toHaveLength(1);
    });

    it('refuses CallbackTs given in seconds instead of milliseconds', async () => {
      const event = roomEvent(103, {}, { CallbackTs: Math.floor(now() / 1000) });
      expectRefused(await postJson(event));
      expect(await rowsForRoom(roomOf(event))).toEqual([]);
    });

    it.each([
      ['a decimal string', (ms: number): unknown => String(ms)],
      ['a fractional number', (ms: number): unknown => ms + 0.5],
      ['null', (): unknown => null],
      ['a boolean', (): unknown => true],
      ['an object', (ms: number): unknown => ({ ms })],
    ])('refuses CallbackTs as %s (must be an integer)', async (_label, make) => {
      const event = roomEvent(103, {}, { CallbackTs: make(now()) });
      expectRefused(await postJson(event));
      expect(await rowsForRoom(roomOf(event))).toEqual([]);
    });

    it('refuses a missing CallbackTs', async () => {
      const event = roomEvent(103);
      delete event.CallbackTs;
      expectRefused(await postJson(event));
      expect(await rowsForRoom(roomOf(event))).toEqual([]);
    });
  });

  describe('body size limit 65536 bytes (4.5 rule 1, 8)', () => {
    it('accepts a valid body of exactly 65536 bytes and stores it', async () => {
      const event = roomEvent(103);
      const raw = paddedBody(MAX_BODY, event);
      expectAccepted(await post(raw));
      expect(await rowsForRoom(roomOf(event))).toHaveLength(1);
    });

    it('accepts a valid body of exactly 65536 bytes made largely of multi-byte characters', async () => {
      const event = roomEvent(103);
      const raw = paddedBody(MAX_BODY, event, 'é');
      expectAccepted(await post(raw));
      expect(await rowsForRoom(roomOf(event))).toHaveLength(1);
    });

    it('refuses a correctly signed body of 65537 bytes', async () => {
      const event = roomEvent(103);
      const raw = paddedBody(MAX_BODY + 1, event);
      expectRefused(await post(raw));
      expect(await rowsForRoom(roomOf(event))).toEqual([]);
    });

    it('counts bytes, not characters: refuses 65537 bytes that are fewer than 65536 characters', async () => {
      const event = roomEvent(103);
      const raw = paddedBody(MAX_BODY + 1, event, 'é');
      expect(raw.length).toBeLessThan(MAX_BODY);
      expectRefused(await post(raw));
      expect(await rowsForRoom(roomOf(event))).toEqual([]);
    });

    it('refuses large bodies (200 KB, 2 MB) with 403 {"code":1}, not 413', async () => {
      for (const size of [200 * 1024, 2 * 1024 * 1024]) {
        const event = roomEvent(103);
        expectRefused(await post(paddedBody(size, event)));
        expect(await rowsForRoom(roomOf(event))).toEqual([]);
      }
    });

    it('refuses an oversized body that is not even JSON', async () => {
      const raw = '{'.repeat(MAX_BODY + 1);
      expectRefused(await post(raw));
    });

    describe('chunked uploads (no Content-Length)', () => {
      let server: Server;
      let port: number;
      beforeAll(async () => {
        server = createServer(t.app.getHttpAdapter().getInstance());
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        port = (server.address() as AddressInfo).port;
      });
      afterAll(async () => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      });

      function postChunked(raw: string): Promise<{ status: number; text: string }> {
        return new Promise((resolve, reject) => {
          const req = httpRequest(
            {
              host: '127.0.0.1',
              port,
              method: 'POST',
              path: PATH,
              headers: {
                'Content-Type': 'application/json',
                SdkAppId: TEST_SECRETS.RTC_SDK_APP_ID,
                Sign: sign(raw),
                'Transfer-Encoding': 'chunked',
              },
            },
            (res) => {
              const chunks: Buffer[] = [];
              res.on('data', (c: Buffer) => chunks.push(c));
              res.on('end', () =>
                resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
              );
            },
          );
          req.on('error', reject);
          const buf = Buffer.from(raw, 'utf8');
          for (let i = 0; i < buf.length; i += 8192) req.write(buf.subarray(i, i + 8192));
          req.end();
        });
      }

      it('accepts a valid chunked body of exactly 65536 bytes', async () => {
        const event = roomEvent(103);
        const reply = await postChunked(paddedBody(MAX_BODY, event));
        expect({ status: reply.status, body: JSON.parse(reply.text) as unknown }).toEqual({
          status: 200,
          body: { code: 0 },
        });
        expect(await rowsForRoom(roomOf(event))).toHaveLength(1);
      });

      it('refuses a correctly signed chunked body of 65537 bytes', async () => {
        const event = roomEvent(103);
        const reply = await postChunked(paddedBody(MAX_BODY + 1, event));
        expect({ status: reply.status, body: JSON.parse(reply.text) as unknown }).toEqual({
          status: 403,
          body: { code: 1 },
        });
        expect(await rowsForRoom(roomOf(event))).toEqual([]);
      });
    });
  });

  describe('malformed bodies are refused with 403 {"code":1} (4.5 rule 4)', () => {
    it.each([
      ['truncated JSON', '{"EventGroupId":1,"EventType":103'],
      ['not JSON at all', 'hello'],
      ['an empty body', ''],
      ['a JSON array', '[]'],
      ['a JSON string', '"x"'],
      ['a JSON number', '1'],
      ['JSON null', 'null'],
      ['trailing garbage', '{"EventGroupId":1}xyz'],
    ])('refuses %s even when correctly signed', async (_label, raw) => {
      expectRefused(await post(raw));
    });

    it('refuses malformed JSON without any headers', async () => {
      const response = await t.http.post(PATH).set('Content-Type', 'application/json').send('{oops');
      expectRefused(response);
    });

    it('refuses an unsigned POST with no body at all', async () => {
      expectRefused(await t.http.post(PATH));
    });
  });

  describe('request-line variants of the callback address (4.5 rules 3-4, 7)', () => {
    const postTo = (path: string, raw: string, signature: string) =>
      t.http
        .post(path)
        .set('Content-Type', 'application/json')
        .set('SdkAppId', TEST_SECRETS.RTC_SDK_APP_ID)
        .set('Sign', signature)
        .send(raw);

    it('serves the callback with a query string appended, with the same verification', async () => {
      const event = roomEvent(103);
      const raw = JSON.stringify(event);
      expectRefused(await postTo(`${PATH}?source=trtc`, raw, sign(raw, 'wrong')));
      expectAccepted(await postTo(`${PATH}?source=trtc`, raw, sign(raw)));
      expect(await rowsForRoom(roomOf(event))).toHaveLength(1);
    });

    // Wherever the service routes a POST to the callback handler, a failed check must still be the
    // provider-format 403 {"code":1}, never a 500 or an IM envelope.
    it.each([[`${PATH}/`], ['/APP/SDK/RTC/ROOM-CALLBACK'], ['/app/sdk/rtc/Room-Callback']])(
      'answers failures on %s with 403 {"code":1} when that address is served at all',
      async (path) => {
        const good = JSON.stringify(roomEvent(103));
        const served = await postTo(path, good, sign(good));
        const badSign = await postTo(path, JSON.stringify(roomEvent(103)), 'bad');
        const oversized = paddedBody(MAX_BODY + 1, roomEvent(103));
        const tooBig = await postTo(path, oversized, sign(oversized));
        const garbage = await postTo(path, '{oops', sign('{oops'));
        if (served.status === 404) {
          // not routed: every request to it is simply not found
          expect([badSign.status, tooBig.status, garbage.status]).toEqual([404, 404, 404]);
        } else {
          expectAccepted(served);
          const summary = (r: Response) => ({ status: r.status, body: JSON.parse(r.text) as unknown });
          const refused = { status: 403, body: { code: 1 } };
          expect({ badSign: summary(badSign), tooBig: summary(tooBig), garbage: summary(garbage) }).toEqual({
            badSign: refused,
            tooBig: refused,
            garbage: refused,
          });
        }
      },
    );
  });

  describe('GET on the same path (4.5 rule 5)', () => {
    it('replies 200 {"code":0} with no-store, without any signature', async () => {
      const response = await t.http.get(PATH);
      expectAccepted(response);
    });

    it('replies 200 {"code":0} with a query string and unrelated headers', async () => {
      const response = await t.http.get(`${PATH}?ping=1`).set('SdkAppId', 'whatever').set('Sign', 'nonsense');
      expectAccepted(response);
    });
  });
});
