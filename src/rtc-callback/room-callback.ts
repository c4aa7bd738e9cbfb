import { CallbackRejectedError } from '../common/app-error';
import { hasControlChars } from '../common/text';

export const ROOM_EVENT_GROUP = 1;
export const ROOM_CLOSED = 102;
export const USER_ENTERED = 103;
export const USER_LEFT = 104;
export const HANDLED_EVENT_TYPES = [ROOM_CLOSED, USER_ENTERED, USER_LEFT];
export const CALLBACK_WINDOW_MS = 5 * 60 * 1000;
const MAX_ROOM_ID = 4294967295;

/** A verified room event the service acts on. */
export interface RoomEvent {
  eventType: number;
  roomId: string;
  providerUserId: string | null;
  eventMs: number;
  callbackTs: number;
  eventInfo: Record<string, unknown>;
}

function reject(reason: string): never {
  throw new CallbackRejectedError(reason);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Positive integer up to `max`, as a JSON integer or its canonical decimal string. */
function positiveInteger(value: unknown, max: number): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 && value <= max ? value : null;
  if (typeof value === 'string' && /^[1-9][0-9]{0,15}$/.test(value)) {
    const parsed = Number(value);
    return parsed <= max ? parsed : null;
  }
  return null;
}

/** The callback timestamp must lie within five minutes of the server's time, either side. */
export function checkCallbackTs(body: unknown, now: number): number {
  if (!isPlainObject(body)) reject('body is not a JSON object');
  const ts = body.CallbackTs;
  if (typeof ts !== 'number' || !Number.isSafeInteger(ts)) reject('CallbackTs must be an integer');
  if (Math.abs(now - ts) > CALLBACK_WINDOW_MS) reject('CallbackTs outside the 5-minute window');
  return ts;
}

/**
 * Checks the content rules of spec 4.5 on a signed, parsed body. Returns the event when it is
 * one the service handles (group 1, types 102–104), null when it is verified but ignored.
 */
export function parseRoomCallback(body: Record<string, unknown>, callbackTs: number): RoomEvent | null {
  const { EventGroupId: group, EventType: type, EventInfo: info } = body;
  if (typeof group !== 'number' || !Number.isSafeInteger(group)) reject('EventGroupId must be an integer');
  if (typeof type !== 'number' || !Number.isSafeInteger(type)) reject('EventType must be an integer');
  if (!isPlainObject(info) || Object.keys(info).length === 0) reject('EventInfo must be a non-empty object');
  if (info.RoomId !== undefined && positiveInteger(info.RoomId, MAX_ROOM_ID) === null) reject('EventInfo.RoomId out of range');
  if (group !== ROOM_EVENT_GROUP || !HANDLED_EVENT_TYPES.includes(type)) return null;

  const roomId = positiveInteger(info.RoomId, MAX_ROOM_ID);
  if (roomId === null) reject('EventInfo.RoomId is required');

  let providerUserId: string | null = null;
  if (type === USER_ENTERED || type === USER_LEFT) {
    const userId = info.UserId;
    if (typeof userId !== 'string' || userId.length === 0 || userId.length > 128 || hasControlChars(userId)) reject('EventInfo.UserId is required');
    providerUserId = userId;
  }

  let eventMs: number;
  if (info.EventMsTs !== undefined) {
    const ms = positiveInteger(info.EventMsTs, Number.MAX_SAFE_INTEGER);
    if (ms === null) reject('EventInfo.EventMsTs is invalid');
    eventMs = ms;
  } else {
    const seconds = positiveInteger(info.EventTs, Math.floor(Number.MAX_SAFE_INTEGER / 1000));
    if (seconds === null) reject('EventInfo.EventMsTs or EventInfo.EventTs is required');
    eventMs = seconds * 1000;
  }
  return { eventType: type, roomId: String(roomId), providerUserId, eventMs, callbackTs, eventInfo: info };
}
