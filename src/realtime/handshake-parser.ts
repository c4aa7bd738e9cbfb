import { Decoder, Encoder, PacketType } from 'socket.io-parser';

/**
 * Marks a handshake whose `auth` was not a JSON object, with what it was instead. A symbol key:
 * nothing a client sends can forge it.
 */
export const AUTH_NOT_OBJECT = Symbol('auth is not an object');

export type MarkedAuth = Record<string, unknown> & { [AUTH_NOT_OBJECT]?: string };

// A CONNECT packet: type 0, an optional namespace ("/chat,"), then the auth payload.
const CONNECT = /^0(\/[^,]*,)?/;

function kindOf(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * socket.io's parser refuses a CONNECT packet whose payload is not a JSON object by closing the
 * whole connection, before any middleware runs: a client that passed `auth` as an array or a
 * string got no connect_error and no code. This decoder hands such a handshake to the
 * middleware instead, with `auth` marked (AUTH_NOT_OBJECT), so it is refused like any other
 * (1101). Every other packet is decoded by socket.io's own parser, unchanged.
 */
export class HandshakeDecoder extends Decoder {
  override add(obj: unknown): void {
    if (typeof obj === 'string' && obj.startsWith(String(PacketType.CONNECT))) {
      const head = CONNECT.exec(obj)![0];
      const payload = obj.slice(head.length);
      const kind = payload === '' ? 'an object' : kindOf(payload);
      if (kind !== 'an object') {
        const nsp = head.length > 1 ? head.slice(1, -1) : '/';
        this.emitReserved('decoded', { type: PacketType.CONNECT, nsp, data: { [AUTH_NOT_OBJECT]: kind } });
        return;
      }
    }
    super.add(obj);
  }
}

/** The `parser` option of the socket.io server. */
export const handshakeParser = { Encoder, Decoder: HandshakeDecoder };
