import { randomUUID } from 'node:crypto';
import type { Event as SocketPacket } from 'socket.io';
import { ErrorCode } from '../common/error-code';
import { printableName } from '../common/validation/printable-name';
import { CLIENT_MESSAGE_MAX_BYTES } from '../config/realtime-config';
import { CLIENT_EVENT_TYPES, ClientAck } from '../contract/events';
import type { SocketSession } from './socket-session';

const WINDOW_MS = 10_000;
const MAX_DEPTH = 8;

type Shape = (payload: unknown) => string | null;

/** A key the client sent, named as HTTP's 1004 names it: escaped by printableName, never raw. */
const unknownField = (key: string): string => `${printableName(key)}: unknown field`;

/** Every client event with the check of its one payload: null when valid, else the problem, naming the field. */
const SHAPES: Record<(typeof CLIENT_EVENT_TYPES)[number], Shape> = {
  'auth.renew': (payload) => {
    if (!isPlainObject(payload)) return 'payload must be an object {token}';
    const extra = Object.keys(payload).filter((key) => key !== 'token');
    if (extra.length) return unknownField(extra[0]);
    if (typeof payload.token !== 'string' || payload.token.length === 0) return 'token: must be a non-empty string';
    if (payload.token.length > 4096) return 'token: is too long';
    return null;
  },
  'conversation.typing': (payload) => {
    if (!isPlainObject(payload)) return 'payload must be an object {conversation_id}';
    const extra = Object.keys(payload).filter((key) => key !== 'conversation_id');
    if (extra.length) return unknownField(extra[0]);
    if (typeof payload.conversation_id !== 'string' || payload.conversation_id.length === 0)
      return 'conversation_id: must be a non-empty string';
    if (payload.conversation_id.length > 256) return 'conversation_id: is too long';
    return null;
  },
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}

function tooDeep(value: unknown, depth: number): boolean {
  if (depth > MAX_DEPTH) return true;
  if (typeof value !== 'object' || value === null) return false;
  for (const child of Object.values(value as Record<string, unknown>)) if (tooDeep(child, depth + 1)) return true;
  return false;
}

function hasBinary(value: unknown, depth = 0): boolean {
  if (Buffer.isBuffer(value) || value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return true;
  if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return false;
  return Object.values(value as Record<string, unknown>).some((child) => hasBinary(child, depth + 1));
}

export function ack(code: number, msg: string, traceId: string = randomUUID()): ClientAck {
  return { code, msg, trace_id: traceId };
}

/** What the check decided: pass the message on, or answer `refusal` (when the client asked). */
export type Verdict = { ok: true } | { ok: false; refusal: ClientAck };

/**
 * Client messages are input like any other. Each is checked before any handler sees it: the
 * per-socket rate, a known event name, the size (16 KiB as JSON), no binary attachments, the
 * nesting, and the payload's shape. A refusal never closes the connection.
 */
export function checkClientMessage(
  session: SocketSession,
  packet: SocketPacket,
  now: number,
  perWindow: number,
): Verdict {
  if (now - session.windowStart >= WINDOW_MS) {
    session.windowStart = now;
    session.windowCount = 0;
  }
  session.windowCount += 1;
  if (session.windowCount > perWindow)
    return {
      ok: false,
      refusal: ack(ErrorCode.TOO_FAST, `too many messages: at most ${perWindow} per 10 seconds per connection`),
    };
  const [name, ...rest] = packet;
  const args = typeof rest[rest.length - 1] === 'function' ? rest.slice(0, -1) : rest;
  const shape = typeof name === 'string' ? SHAPES[name as keyof typeof SHAPES] : undefined;
  if (!shape || !Object.prototype.hasOwnProperty.call(SHAPES, name as string)) {
    return {
      ok: false,
      refusal: ack(
        ErrorCode.INVALID_PARAMETER,
        `event: unknown client event (known: ${CLIENT_EVENT_TYPES.join(', ')})`,
      ),
    };
  }
  if (hasBinary(args))
    return { ok: false, refusal: ack(ErrorCode.INVALID_PARAMETER, 'payload: binary attachments are not accepted') };
  if (tooDeep(args, 0))
    return { ok: false, refusal: ack(ErrorCode.INVALID_PARAMETER, `payload: nested deeper than ${MAX_DEPTH} levels`) };
  let size: number;
  try {
    size = Buffer.byteLength(JSON.stringify(args) ?? '', 'utf8');
  } catch {
    return { ok: false, refusal: ack(ErrorCode.INVALID_PARAMETER, 'payload: not serialisable') };
  }
  if (size > CLIENT_MESSAGE_MAX_BYTES)
    return {
      ok: false,
      refusal: ack(ErrorCode.INVALID_PARAMETER, `payload: larger than ${CLIENT_MESSAGE_MAX_BYTES} bytes`),
    };
  if (args.length !== 1)
    return { ok: false, refusal: ack(ErrorCode.INVALID_PARAMETER, 'payload: send exactly one object') };
  const problem = shape(args[0]);
  if (problem) return { ok: false, refusal: ack(ErrorCode.INVALID_PARAMETER, problem) };
  return { ok: true };
}

/** The acknowledgement callback of a packet, when the client asked for one. */
export function ackOf(packet: SocketPacket): ((reply: ClientAck) => void) | null {
  const last: unknown = packet[packet.length - 1];
  return typeof last === 'function' ? (last as (reply: ClientAck) => void) : null;
}
