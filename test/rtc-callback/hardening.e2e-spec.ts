// Issue 10, defects 5 and 6: what a validly signed room callback may store. Content that cannot
// be stored (too deep, too large once serialised, not UTF-8, lone surrogates), provider user
// IDs outside TRTC's rule, event times far from CallbackTs and integers written as fractions or
// exponents are refused with HTTP 403 {"code":1} and nothing is stored; never a 500.
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { MAX_EVENT_INFO_DEPTH } from '../../src/rtc-callback/callback-content';
import { TEST_SECRETS, TestApp, startTestApp } from '../helpers/test-app';

const PATH = '/app/sdk/rtc/room-callback';
const HOUR = 60 * 60 * 1000;
type Json = Record<string, unknown>;

const sign = (raw: string | Buffer): string =>
  createHmac('sha256', TEST_SECRETS.RTC_CALLBACK_SECRET).update(raw).digest('base64');
const randomRoomId = (): number => randomInt(1_000_000, 4_294_967_295);
const providerUser = (): string => `rtc_${randomBytes(6).toString('hex')}`;

/** `{"a":{"a":…{"leaf":1}…}}` with `levels` objects. */
function nestedText(levels: number): string {
  return `${'{"a":'.repeat(levels - 1)}{"leaf":1}${'}'.repeat(levels - 1)}`;
}

describe('room callback: what a signed body may store (issue 10, defects 5 and 6)', () => {
  let t: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());
  beforeEach(() => t.clock.set(Date.now()));
  const now = (): number => t.clock.now();

  function post(raw: string | Buffer, contentType = 'application/json') {
    return t.http
      .post(PATH)
      .set('Content-Type', contentType)
      .set('SdkAppId', TEST_SECRETS.RTC_SDK_APP_ID)
      .set('Sign', sign(raw))
      .send(raw);
  }

  function expectReply(response: Response, status: 200 | 403): void {
    expect({ status: response.status, body: JSON.parse(response.text) as unknown }).toEqual({
      status,
      body: { code: status === 200 ? 0 : 1 },
    });
  }

  async function storedForRoom(
    roomId: number,
  ): Promise<Array<{ provider_user_id: string | null; event_ms: number; event_info: string }>> {
    const rows: Array<Record<string, unknown>> = await db.query(
      'SELECT provider_user_id, event_ms, event_info FROM rtc_room_events WHERE room_id = ?',
      [String(roomId)],
    );
    return rows.map((r) => ({
      provider_user_id: (r.provider_user_id as string | null) ?? null,
      event_ms: Number(r.event_ms),
      event_info: String(r.event_info),
    }));
  }

  /** A 103 event's raw body with `info` spliced in as raw JSON text (so any form can be sent). */
  function rawEvent(roomId: number, infoFields: string, top = ''): string {
    return `{"EventGroupId":1,"EventType":103,"CallbackTs":${now()},"EventInfo":{"RoomId":${roomId},${infoFields}}${top}}`;
  }

  describe('depth and size of EventInfo (defect 5)', () => {
    it('refuses an EventInfo nested 5,000 levels (10 KB) with 403 and stores nothing', async () => {
      const roomId = randomRoomId();
      const raw = rawEvent(roomId, `"UserId":"${providerUser()}","EventMsTs":${now()},"Deep":${nestedText(5000)}`);
      expect(Buffer.byteLength(raw)).toBeGreaterThan(10_000);
      expectReply(await post(raw), 403);
      expect(await storedForRoom(roomId)).toEqual([]);
    });

    it('refuses 65 KB of nested arrays in EventInfo', async () => {
      const roomId = randomRoomId();
      const depth = 32_000;
      const raw = rawEvent(
        roomId,
        `"UserId":"${providerUser()}","EventMsTs":${now()},"Deep":${'['.repeat(depth)}${']'.repeat(depth)}`,
      );
      expect(Buffer.byteLength(raw)).toBeLessThanOrEqual(65536);
      expectReply(await post(raw), 403);
      expect(await storedForRoom(roomId)).toEqual([]);
    });

    it(`stores EventInfo nested ${MAX_EVENT_INFO_DEPTH} levels exactly as received, and refuses one level more`, async () => {
      const user = providerUser();
      const [fits, tooDeep] = [randomRoomId(), randomRoomId()];
      // EventInfo is level 1, so its member may nest one level less than the limit.
      const fitting = nestedText(MAX_EVENT_INFO_DEPTH - 1);
      expectReply(await post(rawEvent(fits, `"UserId":"${user}","EventMsTs":${now()},"Deep":${fitting}`)), 200);
      expect((await storedForRoom(fits)).map((r) => JSON.parse(r.event_info) as unknown)).toEqual([
        { RoomId: fits, UserId: user, EventMsTs: now(), Deep: JSON.parse(fitting) as unknown },
      ]);
      expectReply(
        await post(
          rawEvent(tooDeep, `"UserId":"${user}","EventMsTs":${now()},"Deep":${nestedText(MAX_EVENT_INFO_DEPTH)}`),
        ),
        403,
      );
      expect(await storedForRoom(tooDeep)).toEqual([]);
    });

    it('refuses an EventInfo whose stored form would exceed 65,536 bytes (numbers grow when re-serialised)', async () => {
      const roomId = randomRoomId();
      const raw = rawEvent(
        roomId,
        `"UserId":"${providerUser()}","EventMsTs":${now()},"List":[${Array.from({ length: 12_000 }, () => '1e20').join(',')}]`,
      );
      expect(Buffer.byteLength(raw)).toBeLessThanOrEqual(65536);
      expectReply(await post(raw), 403);
      expect(await storedForRoom(roomId)).toEqual([]);
    });

    it('acknowledges deep content outside EventInfo, or in an ignored event type, without storing it', async () => {
      const stored = randomRoomId();
      expectReply(
        await post(
          rawEvent(stored, `"UserId":"${providerUser()}","EventMsTs":${now()}`, `,"Extra":${nestedText(5000)}`),
        ),
        200,
      );
      expect((await storedForRoom(stored)).map((r) => Object.keys(JSON.parse(r.event_info) as Json))).toEqual([
        ['RoomId', 'UserId', 'EventMsTs'],
      ]);
      const ignored = randomRoomId();
      const raw = `{"EventGroupId":1,"EventType":105,"CallbackTs":${now()},"EventInfo":{"RoomId":${ignored},"Deep":${nestedText(5000)}}}`;
      expectReply(await post(raw), 200);
      expect(await storedForRoom(ignored)).toEqual([]);
    });

    it('refuses a lone surrogate anywhere in EventInfo, and bytes that are not UTF-8', async () => {
      const [inValue, inKey, notUtf8] = [randomRoomId(), randomRoomId(), randomRoomId()];
      expectReply(
        await post(rawEvent(inValue, `"UserId":"${providerUser()}","EventMsTs":${now()},"Note":"x\\udc00y"`)),
        403,
      );
      expectReply(await post(rawEvent(inKey, `"UserId":"${providerUser()}","EventMsTs":${now()},"k\\ud800":1`)), 403);
      const bytes = Buffer.concat([
        Buffer.from(rawEvent(notUtf8, `"UserId":"${providerUser()}","EventMsTs":${now()},"Note":"`)),
        Buffer.from([0xc3, 0x28, 0xff]),
        Buffer.from('"}}'),
      ]);
      expectReply(await post(bytes, 'application/octet-stream'), 403);
      for (const roomId of [inValue, inKey, notUtf8]) expect(await storedForRoom(roomId)).toEqual([]);
    });

    it('answers every deep or huge signed body with the provider format, never 500', async () => {
      const bodies = [
        `{"EventGroupId":1,"EventType":103,"CallbackTs":${now()},"EventInfo":${'['.repeat(30_000)}${']'.repeat(30_000)}}`,
        `${'['.repeat(32_000)}${']'.repeat(32_000)}`,
        `{"EventGroupId":1,"EventType":103,"CallbackTs":${now()},"EventInfo":{"RoomId":1,"UserId":"u","EventMsTs":${now()},"K":${'{"a":'.repeat(9000)}1${'}'.repeat(9000)}}}`,
      ];
      for (const raw of bodies) expectReply(await post(raw), 403);
    });
  });

  describe('provider user IDs (defect 6): TRTC userId, at most 32 ASCII letters, digits, "_" or "-"', () => {
    it.each([
      ['a lone surrogate', '"u\\ud800"'],
      ['33 characters', `"${'a'.repeat(33)}"`],
      ['non-ASCII letters', '"用户-é"'],
      ['a space', '"a b"'],
      ['a dot', '"a.b"'],
      ['a control character', '"a\\u0001"'],
      ['an empty string', '""'],
    ])('refuses a UserId with %s', async (_label, userId) => {
      for (const type of [103, 104]) {
        const roomId = randomRoomId();
        const raw = `{"EventGroupId":1,"EventType":${type},"CallbackTs":${now()},"EventInfo":{"RoomId":${roomId},"UserId":${userId},"EventMsTs":${now()}}}`;
        expectReply(await post(raw), 403);
        expect(await storedForRoom(roomId)).toEqual([]);
      }
    });

    it('stores a UserId of exactly 32 allowed characters', async () => {
      const roomId = randomRoomId();
      const userId = `Ab-_${randomBytes(14).toString('hex')}`;
      expect(userId).toHaveLength(32);
      expectReply(await post(rawEvent(roomId, `"UserId":"${userId}","EventMsTs":${now()}`)), 200);
      expect((await storedForRoom(roomId)).map((r) => r.provider_user_id)).toEqual([userId]);
    });
  });

  describe('event times (defect 6): from 24 h before CallbackTs to 5 minutes after it', () => {
    it.each([
      ['EventMsTs 1e15 (year 33658)', '"EventMsTs":1000000000000000'],
      ['EventMsTs as the string "1000000000000000"', '"EventMsTs":"1000000000000000"'],
      ['EventMsTs 1 ms beyond 5 minutes after CallbackTs', 'AFTER'],
      ['EventMsTs 1 ms older than 24 h before CallbackTs', 'BEFORE'],
      ['EventTs in ms instead of seconds', 'TS_AS_MS'],
      ['EventMsTs in seconds (1970)', 'MS_AS_S'],
    ])('refuses %s', async (_label, field) => {
      const roomId = randomRoomId();
      const n = now();
      const fields: Record<string, string> = {
        AFTER: `"EventMsTs":${n + 5 * 60_000 + 1}`,
        BEFORE: `"EventMsTs":${n - 24 * HOUR - 1}`,
        TS_AS_MS: `"EventTs":${n}`,
        MS_AS_S: `"EventMsTs":${Math.floor(n / 1000)}`,
      };
      expectReply(await post(rawEvent(roomId, `"UserId":"${providerUser()}",${fields[field] ?? field}`)), 403);
      expect(await storedForRoom(roomId)).toEqual([]);
    });

    it('stores event times at both ends of the range, EventTs converted from seconds', async () => {
      const n = now();
      const cases: Array<[number, string, number]> = [
        [randomRoomId(), `"EventMsTs":${n - 24 * HOUR}`, n - 24 * HOUR],
        [randomRoomId(), `"EventMsTs":"${n + 5 * 60_000}"`, n + 5 * 60_000],
        [randomRoomId(), `"EventTs":${Math.floor(n / 1000) - 3600}`, (Math.floor(n / 1000) - 3600) * 1000],
      ];
      for (const [roomId, field, expected] of cases) {
        expectReply(await post(rawEvent(roomId, `"UserId":"${providerUser()}",${field}`)), 200);
        expect((await storedForRoom(roomId)).map((r) => r.event_ms)).toEqual([expected]);
      }
    });
  });

  describe('integers only where the spec says integer (defect 6)', () => {
    it.each([
      [
        'EventType 103.0',
        (roomId: number, n: number) =>
          `{"EventGroupId":1,"EventType":103.0,"CallbackTs":${n},"EventInfo":{"RoomId":${roomId},"UserId":"u1","EventMsTs":${n}}}`,
      ],
      [
        'EventGroupId 1e0',
        (roomId: number, n: number) =>
          `{"EventGroupId":1e0,"EventType":103,"CallbackTs":${n},"EventInfo":{"RoomId":${roomId},"UserId":"u1","EventMsTs":${n}}}`,
      ],
      [
        'CallbackTs with an exponent',
        (roomId: number, n: number) =>
          `{"EventGroupId":1,"EventType":103,"CallbackTs":${n / 1000}e3,"EventInfo":{"RoomId":${roomId},"UserId":"u1","EventMsTs":${n}}}`,
      ],
      [
        'RoomId with a fraction',
        (roomId: number, n: number) =>
          `{"EventGroupId":1,"EventType":103,"CallbackTs":${n},"EventInfo":{"RoomId":${roomId}.0,"UserId":"u1","EventMsTs":${n}}}`,
      ],
      [
        'RoomId with an exponent',
        (roomId: number, n: number) =>
          `{"EventGroupId":1,"EventType":103,"CallbackTs":${n},"EventInfo":{"RoomId":${roomId}E0,"UserId":"u1","EventMsTs":${n}}}`,
      ],
      [
        'RoomId "1e3" as a string',
        (roomId: number, n: number) =>
          `{"EventGroupId":1,"EventType":103,"CallbackTs":${n},"EventInfo":{"RoomId":"1e3","UserId":"u1","EventMsTs":${n},"Room":${roomId}}}`,
      ],
      [
        'EventMsTs with an exponent',
        (roomId: number, n: number) =>
          `{"EventGroupId":1,"EventType":103,"CallbackTs":${n},"EventInfo":{"RoomId":${roomId},"UserId":"u1","EventMsTs":${n / 1000}e3}}`,
      ],
      [
        'EventMsTs "1.8e12" as a string',
        (roomId: number, n: number) =>
          `{"EventGroupId":1,"EventType":103,"CallbackTs":${n},"EventInfo":{"RoomId":${roomId},"UserId":"u1","EventMsTs":"${n / 1e12}e12"}}`,
      ],
      [
        'EventTs with a fraction',
        (roomId: number, n: number) =>
          `{"EventGroupId":1,"EventType":103,"CallbackTs":${n},"EventInfo":{"RoomId":${roomId},"UserId":"u1","EventTs":${Math.floor(n / 1000)}.0}}`,
      ],
    ])('refuses %s', async (_label, build) => {
      const roomId = randomRoomId();
      expectReply(await post(build(roomId, now())), 403);
      expect(await storedForRoom(roomId)).toEqual([]);
    });

    it('keeps fractions where the spec asks for no integer (another EventInfo field)', async () => {
      const roomId = randomRoomId();
      expectReply(await post(rawEvent(roomId, `"UserId":"${providerUser()}","EventMsTs":${now()},"Score":0.5`)), 200);
      expect((await storedForRoom(roomId)).map((r) => (JSON.parse(r.event_info) as Json).Score)).toEqual([0.5]);
    });
  });
});
