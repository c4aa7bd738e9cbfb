import { CallbackRejectedError } from '../common/app-error';
import { storableEventInfo } from './callback-content';

export const ROOM_EVENT_GROUP = 1;
export const ROOM_CLOSED = 102;
export const USER_ENTERED = 103;
export const USER_LEFT = 104;
export const HANDLED_EVENT_TYPES = [ROOM_CLOSED, USER_ENTERED, USER_LEFT];
export const CALLBACK_WINDOW_MS = 5 * 60 * 1000;
/**
 * How long before its callback an event may have happened. TRTC sends a callback at once and
 * stops retrying one minute after the first attempt, so a day is generous; an older event time
 * is a fault of the sender, not a late delivery.
 */
export const EVENT_MAX_AGE_MS = 24 * 60 * 60 * 1000;
/** An event cannot happen after its callback was sent; the clock tolerance of CallbackTs applies. */
export const EVENT_MAX_LEAD_MS = CALLBACK_WINDOW_MS;
const MAX_ROOM_ID = 4294967295;
/**
 * TRTC's userId: at most 32 bytes of ASCII letters, digits, underscore and hyphen (TRTCParams.userId;
 * the same rule as a Tencent IM UserID used for TRTC).
 */
export const PROVIDER_USER_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** A verified room event the service acts on. */
export interface RoomEvent {
  eventType: number;
  roomId: string;
  providerUserId: string | null;
  eventMs: number;
  /** Stamped only to the second (EventTs without EventMsTs): `eventMs` is the start of that second. */
  secondsOnly: boolean;
  callbackTs: number;
  /** EventInfo as the JSON text to store. */
  eventInfo: string;
}

/** A stored room event, with the row ID that orders the events of a room as they arrived. */
export interface StoredRoomEvent extends RoomEvent {
  id: string;
}

/** Paths of number literals written with a fraction or exponent (see inexactIntegerPaths). */
export type InexactNumbers = ReadonlySet<string>;
const NONE: InexactNumbers = new Set();

function reject(reason: string): never {
  throw new CallbackRejectedError(reason);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A JSON integer written as one (no fraction, no exponent). */
function isExactInteger(value: unknown, path: string, inexact: InexactNumbers): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && !inexact.has(path);
}

/** Positive integer up to `max`, as a JSON integer or its canonical decimal string. */
function positiveInteger(value: unknown, max: number, path: string, inexact: InexactNumbers): number | null {
  if (typeof value === 'number')
    return isExactInteger(value, path, inexact) && value > 0 && value <= max ? value : null;
  if (typeof value === 'string' && /^[1-9][0-9]{0,15}$/.test(value)) {
    const parsed = Number(value);
    return parsed <= max ? parsed : null;
  }
  return null;
}

/** The callback timestamp must lie within five minutes of the server's time, either side. */
export function checkCallbackTs(body: unknown, now: number, inexact: InexactNumbers = NONE): number {
  if (!isPlainObject(body)) reject('body is not a JSON object');
  const ts = body.CallbackTs;
  if (!isExactInteger(ts, 'CallbackTs', inexact)) reject('CallbackTs must be an integer');
  if (Math.abs(now - ts) > CALLBACK_WINDOW_MS) reject('CallbackTs outside the 5-minute window');
  return ts;
}

/**
 * The event time in ms: EventMsTs, or else EventTs in seconds. Either must be well-formed when
 * present; the one used must fall within a day before the callback and the clock tolerance
 * after it.
 */
function eventTime(info: Record<string, unknown>, callbackTs: number, inexact: InexactNumbers): number {
  const ms =
    info.EventMsTs === undefined
      ? undefined
      : positiveInteger(info.EventMsTs, Number.MAX_SAFE_INTEGER, 'EventInfo.EventMsTs', inexact);
  const seconds =
    info.EventTs === undefined
      ? undefined
      : positiveInteger(info.EventTs, Math.floor(Number.MAX_SAFE_INTEGER / 1000), 'EventInfo.EventTs', inexact);
  if (ms === null) reject('EventInfo.EventMsTs is invalid');
  if (seconds === null) reject('EventInfo.EventTs is invalid');
  const eventMs = ms ?? (seconds === undefined ? undefined : seconds * 1000);
  if (eventMs === undefined) reject('EventInfo.EventMsTs or EventInfo.EventTs is required');
  if (eventMs > callbackTs + EVENT_MAX_LEAD_MS || eventMs < callbackTs - EVENT_MAX_AGE_MS)
    reject('event time too far from CallbackTs');
  return eventMs;
}

/**
 * Checks the content rules of spec 4.5 on a signed, parsed body. Returns the event when it is
 * one the service handles (group 1, types 102–104), null when it is verified but ignored.
 */
export function parseRoomCallback(
  body: Record<string, unknown>,
  callbackTs: number,
  inexact: InexactNumbers = NONE,
): RoomEvent | null {
  const { EventGroupId: group, EventType: type, EventInfo: info } = body;
  if (!isExactInteger(group, 'EventGroupId', inexact)) reject('EventGroupId must be an integer');
  if (!isExactInteger(type, 'EventType', inexact)) reject('EventType must be an integer');
  if (!isPlainObject(info) || Object.keys(info).length === 0) reject('EventInfo must be a non-empty object');
  const roomId =
    info.RoomId === undefined ? undefined : positiveInteger(info.RoomId, MAX_ROOM_ID, 'EventInfo.RoomId', inexact);
  if (roomId === null) reject('EventInfo.RoomId out of range');
  if (group !== ROOM_EVENT_GROUP || !HANDLED_EVENT_TYPES.includes(type)) return null;
  if (roomId === undefined) reject('EventInfo.RoomId is required');

  let providerUserId: string | null = null;
  if (type === USER_ENTERED || type === USER_LEFT) {
    const userId = info.UserId;
    if (typeof userId !== 'string' || !PROVIDER_USER_ID.test(userId))
      reject('EventInfo.UserId is required: 1-32 letters, digits, "_" or "-"');
    providerUserId = userId;
  }
  const eventMs = eventTime(info, callbackTs, inexact);
  return {
    eventType: type,
    roomId: String(roomId),
    providerUserId,
    eventMs,
    secondsOnly: info.EventMsTs === undefined,
    callbackTs,
    eventInfo: storableEventInfo(info),
  };
}
