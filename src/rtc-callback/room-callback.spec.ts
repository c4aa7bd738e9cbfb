import { CallbackRejectedError } from '../common/app-error';
import { signCallback } from './callback-signature.guard';
import { MAX_EVENT_INFO_DEPTH, inexactIntegerPaths, storableEventInfo } from './callback-content';
import { CALLBACK_WINDOW_MS, EVENT_MAX_AGE_MS, checkCallbackTs, parseRoomCallback } from './room-callback';

const now = 1_800_000_000_000;
const seconds = now / 1000;
const body = (eventType: number, info: Record<string, unknown>, group = 1) => ({
  EventGroupId: group,
  EventType: eventType,
  CallbackTs: now,
  EventInfo: info,
});
const parsedText = (text: string) =>
  parseRoomCallback(JSON.parse(text) as Record<string, unknown>, now, inexactIntegerPaths(text));

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 1 };
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

describe('room callback rules (spec 4.5)', () => {
  it('accepts the time window inclusively on both sides', () => {
    expect(checkCallbackTs({ CallbackTs: now - CALLBACK_WINDOW_MS }, now)).toBe(now - CALLBACK_WINDOW_MS);
    expect(checkCallbackTs({ CallbackTs: now + CALLBACK_WINDOW_MS }, now)).toBe(now + CALLBACK_WINDOW_MS);
    expect(() => checkCallbackTs({ CallbackTs: now - CALLBACK_WINDOW_MS - 1 }, now)).toThrow(CallbackRejectedError);
    expect(() => checkCallbackTs({ CallbackTs: now + CALLBACK_WINDOW_MS + 1 }, now)).toThrow(CallbackRejectedError);
    expect(() => checkCallbackTs({ CallbackTs: String(now) }, now)).toThrow(CallbackRejectedError);
    expect(() => checkCallbackTs([], now)).toThrow(CallbackRejectedError);
    expect(() => checkCallbackTs({ CallbackTs: now }, now, new Set(['CallbackTs']))).toThrow(CallbackRejectedError);
  });

  it('parses user entered with EventMsTs, and falls back to EventTs seconds', () => {
    expect(parseRoomCallback(body(103, { RoomId: 42, UserId: 'p1', EventMsTs: now }), now)).toMatchObject({
      eventType: 103,
      roomId: '42',
      providerUserId: 'p1',
      eventMs: now,
    });
    expect(
      parseRoomCallback(body(104, { RoomId: '4294967295', UserId: 'p1', EventTs: String(seconds) }), now),
    ).toMatchObject({ roomId: '4294967295', eventMs: now });
    expect(parseRoomCallback(body(102, { RoomId: 7, EventTs: seconds }), now)).toMatchObject({
      eventType: 102,
      providerUserId: null,
      eventInfo: `{"RoomId":7,"EventTs":${seconds}}`,
    });
  });

  it('accepts event times from a day before the callback to the clock tolerance after it', () => {
    for (const ms of [now - EVENT_MAX_AGE_MS, now + CALLBACK_WINDOW_MS])
      expect(parseRoomCallback(body(102, { RoomId: 1, EventMsTs: ms }), now)?.eventMs).toBe(ms);
    for (const ms of [now - EVENT_MAX_AGE_MS - 1, now + CALLBACK_WINDOW_MS + 1, 1e15]) {
      expect(() => parseRoomCallback(body(102, { RoomId: 1, EventMsTs: ms }), now)).toThrow(CallbackRejectedError);
    }
    expect(() => parseRoomCallback(body(102, { RoomId: 1, EventTs: 1_000_000_000_000 }), now)).toThrow(
      CallbackRejectedError,
    );
  });

  it('accepts TRTC user IDs: up to 32 ASCII letters, digits, "_" and "-"', () => {
    for (const userId of ['a', 'A-z_09', 'x'.repeat(32)])
      expect(parseRoomCallback(body(103, { RoomId: 1, UserId: userId, EventMsTs: now }), now)?.providerUserId).toBe(
        userId,
      );
  });

  it.each([
    ['RoomId 0', body(102, { RoomId: 0, EventTs: seconds })],
    ['RoomId too large', body(102, { RoomId: 4294967296, EventTs: seconds })],
    ['RoomId string too large', body(102, { RoomId: '4294967296', EventTs: seconds })],
    ['RoomId fractional', body(102, { RoomId: 1.5, EventTs: seconds })],
    ['RoomId leading zero', body(102, { RoomId: '042', EventTs: seconds })],
    ['RoomId exponent string', body(102, { RoomId: '1e3', EventTs: seconds })],
    ['RoomId missing', body(102, { EventTs: seconds })],
    ['UserId missing on 103', body(103, { RoomId: 1, EventTs: seconds })],
    ['UserId empty on 104', body(104, { RoomId: 1, UserId: '', EventTs: seconds })],
    ['UserId of 33 characters', body(104, { RoomId: 1, UserId: 'x'.repeat(33), EventTs: seconds })],
    ['UserId with a lone surrogate', body(103, { RoomId: 1, UserId: 'a\ud800', EventTs: seconds })],
    ['UserId with a space', body(103, { RoomId: 1, UserId: 'a b', EventTs: seconds })],
    ['UserId with a dot', body(103, { RoomId: 1, UserId: 'a.b', EventTs: seconds })],
    ['UserId non-ASCII', body(103, { RoomId: 1, UserId: 'usér', EventTs: seconds })],
    ['no event time', body(102, { RoomId: 1 })],
    ['invalid EventMsTs even with EventTs', body(102, { RoomId: 1, EventMsTs: 'soon', EventTs: seconds })],
    ['invalid EventTs even with EventMsTs', body(102, { RoomId: 1, EventMsTs: now, EventTs: 1.5 })],
    ['EventMsTs exponent string', body(102, { RoomId: 1, EventMsTs: '1.8e12' })],
    ['empty EventInfo', body(102, {})],
    ['EventInfo array', { EventGroupId: 1, EventType: 102, CallbackTs: now, EventInfo: [1] }],
    ['EventType string', { EventGroupId: 1, EventType: '102', CallbackTs: now, EventInfo: { RoomId: 1 } }],
    ['EventGroupId missing', { EventType: 102, CallbackTs: now, EventInfo: { RoomId: 1 } }],
    ['EventInfo too deep', body(102, { RoomId: 1, EventMsTs: now, Extra: nested(MAX_EVENT_INFO_DEPTH) })],
    ['a lone surrogate in another EventInfo string', body(102, { RoomId: 1, EventMsTs: now, Note: '\udc00' })],
    ['a lone surrogate in an EventInfo key', body(102, { RoomId: 1, EventMsTs: now, ['k\ud800']: 1 })],
  ])('refuses %s', (_name, value) => {
    expect(() => parseRoomCallback(value as Record<string, unknown>, now)).toThrow(CallbackRejectedError);
  });

  it.each([
    [
      'EventType 103.0',
      `{"EventGroupId":1,"EventType":103.0,"CallbackTs":${now},"EventInfo":{"RoomId":1,"UserId":"u","EventMsTs":${now}}}`,
    ],
    [
      'EventGroupId 1e0',
      `{"EventGroupId":1e0,"EventType":103,"CallbackTs":${now},"EventInfo":{"RoomId":1,"UserId":"u","EventMsTs":${now}}}`,
    ],
    [
      'RoomId 4.2E1',
      `{"EventGroupId":1,"EventType":103,"CallbackTs":${now},"EventInfo":{"RoomId":4.2E1,"UserId":"u","EventMsTs":${now}}}`,
    ],
    [
      'EventMsTs 1.8e12',
      `{"EventGroupId":1,"EventType":103,"CallbackTs":${now},"EventInfo":{"RoomId":1,"UserId":"u","EventMsTs":1.8e12}}`,
    ],
    [
      'EventTs 18e8',
      `{"EventGroupId":1,"EventType":103,"CallbackTs":${now},"EventInfo":{"RoomId":1,"UserId":"u","EventTs":18e8}}`,
    ],
  ])('refuses an integer field written with a fraction or exponent: %s', (_name, text) => {
    expect(() => parsedText(text)).toThrow(CallbackRejectedError);
  });

  it('notes fractions and exponents two levels deep at most, keeps them where no integer is required, and reads escaped keys', () => {
    const text = `{"EventGroupId":1,"EventType":103,"CallbackTs":${now},"EventInfo":{"R\\u006fomId":1,"UserId":"u","EventMsTs":${now},"Score":1.5,"List":[1e3]},"Top":2.5}`;
    expect(parsedText(text)).toMatchObject({
      roomId: '1',
      eventInfo: `{"RoomId":1,"UserId":"u","EventMsTs":${now},"Score":1.5,"List":[1000]}`,
    });
    expect([...inexactIntegerPaths(text)].sort()).toEqual(['EventInfo.Score', 'Top']);
    expect([...inexactIntegerPaths('{"a":"x\\"1.5","b":[2.0,{"c":2.0}],"d":-0.0}')].sort()).toEqual(['b[]', 'd']);
  });

  it('stores EventInfo up to the depth limit and refuses one level more without recursing', () => {
    expect(storableEventInfo(nested(MAX_EVENT_INFO_DEPTH - 1))).toContain('"leaf":1');
    expect(() => storableEventInfo(nested(MAX_EVENT_INFO_DEPTH + 1))).toThrow(CallbackRejectedError);
    const deep = JSON.parse(`${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`) as Record<string, unknown>;
    expect(() => storableEventInfo(deep)).toThrow('nested deeper than 16 levels');
    expect(() => storableEventInfo({ list: Array.from({ length: 7000 }, () => 1e20) })).toThrow('too large');
  });

  it('ignores verified events of other types and groups', () => {
    expect(parseRoomCallback(body(101, { RoomId: 1, EventTs: 1 }), now)).toBeNull();
    expect(parseRoomCallback(body(103, { Anything: true }, 2), now)).toBeNull();
    expect(parseRoomCallback(body(105, { RoomId: 1, Deep: nested(100), UserId: 'any thing' }), now)).toBeNull();
  });

  it('signs the exact bytes', () => {
    const raw = Buffer.from('{"a":1}');
    expect(signCallback(raw, 'k')).toBe(signCallback('{"a":1}', 'k'));
    expect(signCallback(raw, 'k')).not.toBe(signCallback('{"a": 1}', 'k'));
    expect(signCallback(raw, 'k')).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });
});
