import { CallbackRejectedError } from '../common/app-error';
import { signCallback } from './callback-signature.guard';
import { CALLBACK_WINDOW_MS, checkCallbackTs, parseRoomCallback } from './room-callback';

const now = 1_800_000_000_000;
const body = (eventType: number, info: Record<string, unknown>, group = 1) => ({ EventGroupId: group, EventType: eventType, CallbackTs: now, EventInfo: info });

describe('room callback rules (spec 4.5)', () => {
  it('accepts the time window inclusively on both sides', () => {
    expect(checkCallbackTs({ CallbackTs: now - CALLBACK_WINDOW_MS }, now)).toBe(now - CALLBACK_WINDOW_MS);
    expect(checkCallbackTs({ CallbackTs: now + CALLBACK_WINDOW_MS }, now)).toBe(now + CALLBACK_WINDOW_MS);
    expect(() => checkCallbackTs({ CallbackTs: now - CALLBACK_WINDOW_MS - 1 }, now)).toThrow(CallbackRejectedError);
    expect(() => checkCallbackTs({ CallbackTs: now + CALLBACK_WINDOW_MS + 1 }, now)).toThrow(CallbackRejectedError);
    expect(() => checkCallbackTs({ CallbackTs: String(now) }, now)).toThrow(CallbackRejectedError);
    expect(() => checkCallbackTs([], now)).toThrow(CallbackRejectedError);
  });

  it('parses user entered with EventMsTs, and falls back to EventTs seconds', () => {
    expect(parseRoomCallback(body(103, { RoomId: 42, UserId: 'p1', EventMsTs: now }), now)).toMatchObject({ eventType: 103, roomId: '42', providerUserId: 'p1', eventMs: now });
    expect(parseRoomCallback(body(104, { RoomId: '4294967295', UserId: 'p1', EventTs: '1800000000' }), now)).toMatchObject({ roomId: '4294967295', eventMs: 1_800_000_000_000 });
    expect(parseRoomCallback(body(102, { RoomId: 7, EventTs: 1_800_000_000 }), now)).toMatchObject({ eventType: 102, providerUserId: null });
  });

  it.each([
    ['RoomId 0', body(102, { RoomId: 0, EventTs: 1 })],
    ['RoomId too large', body(102, { RoomId: 4294967296, EventTs: 1 })],
    ['RoomId string too large', body(102, { RoomId: '4294967296', EventTs: 1 })],
    ['RoomId fractional', body(102, { RoomId: 1.5, EventTs: 1 })],
    ['RoomId leading zero', body(102, { RoomId: '042', EventTs: 1 })],
    ['RoomId missing', body(102, { EventTs: 1 })],
    ['UserId missing on 103', body(103, { RoomId: 1, EventTs: 1 })],
    ['UserId empty on 104', body(104, { RoomId: 1, UserId: '', EventTs: 1 })],
    ['no event time', body(102, { RoomId: 1 })],
    ['invalid EventMsTs even with EventTs', body(102, { RoomId: 1, EventMsTs: 'soon', EventTs: 1 })],
    ['empty EventInfo', body(102, {})],
    ['EventInfo array', { EventGroupId: 1, EventType: 102, CallbackTs: now, EventInfo: [1] }],
    ['EventType string', { EventGroupId: 1, EventType: '102', CallbackTs: now, EventInfo: { RoomId: 1 } }],
    ['EventGroupId missing', { EventType: 102, CallbackTs: now, EventInfo: { RoomId: 1 } }],
  ])('refuses %s', (_name, value) => {
    expect(() => parseRoomCallback(value as Record<string, unknown>, now)).toThrow(CallbackRejectedError);
  });

  it('ignores verified events of other types and groups', () => {
    expect(parseRoomCallback(body(101, { RoomId: 1, EventTs: 1 }), now)).toBeNull();
    expect(parseRoomCallback(body(103, { Anything: true }, 2), now)).toBeNull();
  });

  it('signs the exact bytes', () => {
    const raw = Buffer.from('{"a":1}');
    expect(signCallback(raw, 'k')).toBe(signCallback('{"a":1}', 'k'));
    expect(signCallback(raw, 'k')).not.toBe(signCallback('{"a": 1}', 'k'));
    expect(signCallback(raw, 'k')).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });
});
