// Black-box tests of POST/GET /app/sdk/rtc/room-callback, written from the spec (4.5, 5 rule 9, 6 rule 4, 7, 8).
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { TEST_SECRETS, TestApp, startTestApp } from '../helpers/test-app';

const PATH = '/app/sdk/rtc/room-callback';
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

  async function rowsForUser(providerUserId: string): Promise<number> {
    const rows: Array<Record<string, unknown>> = await db.query(
      'SELECT COUNT(*) AS n FROM rtc_room_events WHERE provider_user_id = ?',
      [providerUserId],
    );
    return Number(rows[0].n);
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

  describe('accepted room events are stored (4.5, 6.4)', () => {
    // Event times must lie within 24 hours before the callback (and at most 5 minutes after).
    const recentMs = (offset: number): number => Math.floor(now() / 1000) * 1000 - 3_600_000 + offset;
    const recentSeconds = (offset: number): number => Math.floor(now() / 1000) - 3_600 + offset;
    it('stores a 103 user-entered event with EventMsTs and replies exactly {"code":0} with no-store', async () => {
      const event = roomEvent(103, { EventMsTs: recentMs(123) });
      const info = event.EventInfo as Json;
      expectAccepted(await postJson(event));
      expect(await rowsForRoom(roomOf(event))).toEqual([
        { event_type: 103, room_id: roomOf(event), provider_user_id: info.UserId, event_ms: recentMs(123) },
      ]);
    });

    it('stores a 104 user-left event', async () => {
      const event = roomEvent(104, { EventMsTs: recentMs(100_000) });
      expectAccepted(await postJson(event));
      expect(await rowsForRoom(roomOf(event))).toEqual([
        {
          event_type: 104,
          room_id: roomOf(event),
          provider_user_id: (event.EventInfo as Json).UserId,
          event_ms: recentMs(100_000),
        },
      ]);
    });

    it('stores a 102 room-closed event, which needs no UserId', async () => {
      const event = roomEvent(102, { EventMsTs: recentMs(200_000) });
      expect((event.EventInfo as Json).UserId).toBeUndefined();
      expectAccepted(await postJson(event));
      const rows = await rowsForRoom(roomOf(event));
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ event_type: 102, room_id: roomOf(event), event_ms: recentMs(200_000) });
    });

    it('accepts EventMsTs as a decimal string', async () => {
      const event = roomEvent(103, { EventMsTs: String(recentMs(456)) });
      expectAccepted(await postJson(event));
      expect((await rowsForRoom(roomOf(event))).map((r) => r.event_ms)).toEqual([recentMs(456)]);
    });

    it('falls back to EventTs (seconds, integer) times 1000 when EventMsTs is absent', async () => {
      const event = roomEvent(103, { EventMsTs: undefined, EventTs: recentSeconds(300) });
      expectAccepted(await postJson(event));
      expect((await rowsForRoom(roomOf(event))).map((r) => r.event_ms)).toEqual([recentSeconds(300) * 1000]);
    });

    it('falls back to EventTs given as a decimal string', async () => {
      const event = roomEvent(104, { EventMsTs: undefined, EventTs: String(recentSeconds(400)) });
      expectAccepted(await postJson(event));
      expect((await rowsForRoom(roomOf(event))).map((r) => r.event_ms)).toEqual([recentSeconds(400) * 1000]);
    });

    it('prefers EventMsTs over EventTs when both are present', async () => {
      const event = roomEvent(103, { EventMsTs: recentMs(500_789), EventTs: recentSeconds(-600) });
      expectAccepted(await postJson(event));
      expect((await rowsForRoom(roomOf(event))).map((r) => r.event_ms)).toEqual([recentMs(500_789)]);
    });

    it('accepts RoomId as a decimal string and stores it as that decimal string', async () => {
      const roomId = randomRoomId();
      const event = roomEvent(103, { RoomId: String(roomId) });
      expectAccepted(await postJson(event));
      expect((await rowsForRoom(roomId)).map((r) => r.room_id)).toEqual([String(roomId)]);
    });

    it('accepts the largest RoomId 4294967295 as a string and as an integer', async () => {
      // the room is shared by every run on a persistent database, so this run's rows are told apart by event time
      const ms = now() - randomInt(1_000, 80_000_000);
      const asString = roomEvent(102, { RoomId: '4294967295', EventMsTs: ms });
      expectAccepted(await postJson(asString));
      const asInteger = roomEvent(102, { RoomId: 4294967295, EventMsTs: ms + 1 });
      expectAccepted(await postJson(asInteger));
      const rows = (await rowsForRoom('4294967295')).filter((r) => r.event_ms === ms || r.event_ms === ms + 1);
      expect(rows.map((r) => [r.room_id, r.event_ms])).toEqual([
        ['4294967295', ms],
        ['4294967295', ms + 1],
      ]);
    });

    it('accepts RoomId 1 (the smallest positive)', async () => {
      const user = randomProviderUser();
      const event = roomEvent(103, { RoomId: 1, UserId: user });
      expectAccepted(await postJson(event));
      expect(await rowsForUser(user)).toBe(1);
    });

    it('accepts Content-Type application/json; charset=utf-8', async () => {
      const event = roomEvent(103);
      expectAccepted(await postJson(event, { contentType: 'application/json; charset=utf-8' }));
      expect(await rowsForRoom(roomOf(event))).toHaveLength(1);
    });

    it('accepts extra unknown fields at the top level and in EventInfo', async () => {
      const event = roomEvent(103, { TerminalType: 2, UserType: 3, Reason: 1 }, { Extra: 'x' });
      expectAccepted(await postJson(event));
      expect(await rowsForRoom(roomOf(event))).toHaveLength(1);
    });

    it('verifies the exact bytes: pretty-printed JSON signed as sent is accepted', async () => {
      const event = roomEvent(103);
      const raw = JSON.stringify(event, null, 2);
      expectAccepted(await post(raw));
      expect(await rowsForRoom(roomOf(event))).toHaveLength(1);
    });

    it('verifies the exact bytes: non-ASCII text signed over its UTF-8 bytes is accepted', async () => {
      // TRTC user IDs are ASCII (letters, digits, _ and -); other EventInfo fields may carry any text.
      const event = roomEvent(103, { Note: `用户-é-${randomBytes(3).toString('hex')}` });
      expectAccepted(await post(JSON.stringify(event)));
      expect((await rowsForRoom(roomOf(event))).map((r) => r.provider_user_id)).toEqual([
        (event.EventInfo as Json).UserId,
      ]);
    });

    it('stores distinct events of the same room separately (enter, other user enters, leave, close)', async () => {
      const roomId = randomRoomId();
      const [a, b] = [randomProviderUser(), randomProviderUser()];
      const base = now() - 10_000;
      expectAccepted(await postJson(roomEvent(103, { RoomId: roomId, UserId: a, EventMsTs: base + 1 })));
      expectAccepted(await postJson(roomEvent(103, { RoomId: roomId, UserId: b, EventMsTs: base + 2 })));
      expectAccepted(await postJson(roomEvent(104, { RoomId: roomId, UserId: a, EventMsTs: base + 3 })));
      expectAccepted(await postJson(roomEvent(102, { RoomId: roomId, EventMsTs: base + 4 })));
      expect((await rowsForRoom(roomId)).map((r) => [r.event_type, r.provider_user_id, r.event_ms])).toEqual([
        [103, a, base + 1],
        [103, b, base + 2],
        [104, a, base + 3],
        [102, null, base + 4],
      ]);
    });
  });

  describe('retries are acknowledged and stored once (4.5, 6.2)', () => {
    it('acknowledges the identical body sent twice and stores it once', async () => {
      const raw = JSON.stringify(roomEvent(103));
      const roomId = roomOf(JSON.parse(raw) as Json);
      expectAccepted(await post(raw));
      expectAccepted(await post(raw));
      expect(await rowsForRoom(roomId)).toHaveLength(1);
    });

    it('acknowledges five concurrent identical deliveries and stores the event once', async () => {
      for (const type of [102, 103, 104]) {
        const raw = JSON.stringify(roomEvent(type));
        const roomId = roomOf(JSON.parse(raw) as Json);
        const replies = await Promise.all(Array.from({ length: 5 }, () => post(raw)));
        for (const reply of replies) expectAccepted(reply);
        expect(await rowsForRoom(roomId)).toHaveLength(1);
      }
    });
  });

  describe('verified events outside the handled set are acknowledged and ignored (4.5, 6.4)', () => {
    it.each([
      ['EventType 101 in group 1', 1, 101],
      ['EventType 105 in group 1', 1, 105],
      ['EventType 201 in group 1', 1, 201],
      ['EventType 103 in group 2', 2, 103],
      ['EventType 102 in group 2', 2, 102],
      ['EventType 104 in group 3', 3, 104],
    ])('%s → 200 {"code":0}, nothing stored', async (_label, group, type) => {
      const event = roomEvent(type, { UserId: randomProviderUser() }, { EventGroupId: group });
      expectAccepted(await postJson(event));
      expect(await rowsForRoom(roomOf(event))).toEqual([]);
    });

    it('ignores a verified 101 event that carries no RoomId', async () => {
      const event = {
        EventGroupId: 1,
        EventType: 101,
        CallbackTs: now(),
        EventInfo: { UserId: randomProviderUser(), EventMsTs: now() },
      };
      expectAccepted(await postJson(event));
    });

    it('still refuses an unsigned or stale event of an ignored type', async () => {
      const event = roomEvent(105);
      expectRefused(await postJson(event, { sign: null }));
      expectRefused(await postJson(event, { sign: sign(JSON.stringify(event), 'another-secret') }));
      expectRefused(await postJson({ ...event, CallbackTs: now() - 6 * MINUTE }));
      expectRefused(await postJson({ ...event, EventGroupId: 2, CallbackTs: now() + 6 * MINUTE }));
    });
  });

  describe('content validation (4.5 JSON body, 8)', () => {
    it.each([
      ['missing EventGroupId', (e: Json) => void delete e.EventGroupId],
      ['missing EventType', (e: Json) => void delete e.EventType],
      ['missing EventInfo', (e: Json) => void delete e.EventInfo],
      ['EventGroupId as string "1"', (e: Json) => void (e.EventGroupId = '1')],
      ['EventGroupId fractional 1.5', (e: Json) => void (e.EventGroupId = 1.5)],
      ['EventGroupId null', (e: Json) => void (e.EventGroupId = null)],
      ['EventType as string "103"', (e: Json) => void (e.EventType = '103')],
      ['EventType fractional 103.5', (e: Json) => void (e.EventType = 103.5)],
      ['EventType null', (e: Json) => void (e.EventType = null)],
      ['EventType boolean', (e: Json) => void (e.EventType = true)],
      ['EventInfo empty object', (e: Json) => void (e.EventInfo = {})],
      ['EventInfo null', (e: Json) => void (e.EventInfo = null)],
      ['EventInfo array', (e: Json) => void (e.EventInfo = [e.EventInfo])],
      ['EventInfo string', (e: Json) => void (e.EventInfo = JSON.stringify(e.EventInfo))],
    ])('refuses a 103 event with %s', async (_label, mutate) => {
      const event = roomEvent(103);
      const user = (event.EventInfo as Json).UserId as string;
      mutate(event);
      expectRefused(await postJson(event));
      expect(await rowsForUser(user)).toBe(0);
    });

    it.each([
      ['0', 0],
      ['-1', -1],
      ['4294967296', 4294967296],
      ['"4294967296"', '4294967296'],
      ['"abc"', 'abc'],
      ['1.5', 1.5],
      ['"1.5"', '1.5'],
      ['"0"', '0'],
      ['"-5"', '-5'],
      ['""', ''],
      ['" 123"', ' 123'],
      ['"1e3"', '1e3'],
      ['"0x10"', '0x10'],
      ['"99999999999999999999"', '99999999999999999999'],
      ['null', null],
      ['true', true],
      ['an object', { id: 5 }],
      ['an array', [5]],
    ])('refuses RoomId %s', async (_label, roomId) => {
      for (const type of [102, 103, 104]) {
        const user = randomProviderUser();
        const event = roomEvent(type, { RoomId: roomId, UserId: type === 102 ? undefined : user, Tag: user });
        expectRefused(await postJson(event));
        if (type !== 102) expect(await rowsForUser(user)).toBe(0);
      }
    });

    it.each([[102], [103], [104]])('refuses a %s event without RoomId', async (type) => {
      const user = randomProviderUser();
      const event = roomEvent(type, { RoomId: undefined, UserId: type === 102 ? undefined : user, Other: 1 });
      expectRefused(await postJson(event));
      if (type !== 102) expect(await rowsForUser(user)).toBe(0);
    });

    it.each([[103], [104]])('refuses a %s event without UserId', async (type) => {
      const event = roomEvent(type, { UserId: undefined });
      expectRefused(await postJson(event));
      expect(await rowsForRoom(roomOf(event))).toEqual([]);
    });

    it.each([
      ['a number', 12345],
      ['null', null],
      ['an object', { id: 'x' }],
      ['a boolean', true],
    ])('refuses a 103 event whose UserId is %s (must be a string)', async (_label, userId) => {
      const event = roomEvent(103, { UserId: userId });
      expectRefused(await postJson(event));
      expect(await rowsForRoom(roomOf(event))).toEqual([]);
    });

    it.each([[102], [103], [104]])('refuses a %s event with neither EventMsTs nor EventTs', async (type) => {
      const event = roomEvent(type, { EventMsTs: undefined });
      expectRefused(await postJson(event));
      expect(await rowsForRoom(roomOf(event))).toEqual([]);
    });

    it.each([
      ['EventMsTs "abc"', { EventMsTs: 'abc' }],
      ['EventMsTs true', { EventMsTs: true }],
      ['EventMsTs an object', { EventMsTs: { ms: 1 } }],
      ['EventMsTs 1.5', { EventMsTs: 1.5 }],
      ['EventMsTs -1', { EventMsTs: -1 }],
      ['EventTs "abc" without EventMsTs', { EventMsTs: undefined, EventTs: 'abc' }],
      ['EventTs true without EventMsTs', { EventMsTs: undefined, EventTs: true }],
      ['EventTs null without EventMsTs', { EventMsTs: undefined, EventTs: null }],
    ])('refuses a 103 event with %s', async (_label, info) => {
      const event = roomEvent(103, info);
      expectRefused(await postJson(event));
      expect(await rowsForRoom(roomOf(event))).toEqual([]);
    });
  });
});
