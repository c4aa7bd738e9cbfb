import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The resume point a client receives: the position in the global delivery sequence, the time
 * it stands for, and a MAC binding both to the user. Opaque to clients; the server accepts
 * only the exact form it gave, and only from the user it gave it to.
 *
 *   <position base 36>.<time ms base 36>.<16 base64url characters of HMAC-SHA256>
 */
const FORM = /^([0-9a-z]{1,13})\.([0-9a-z]{1,11})\.([A-Za-z0-9_-]{16})$/;
const MAC_BYTES = 12;

export interface ResumePoint {
  position: bigint;
  /** When the event at that position was created (or, for connection.ready, when it was given). */
  at: number;
}

export class PositionTokens {
  constructor(private readonly key: Buffer) {}

  encode(userId: string, position: bigint, at: number): string {
    const body = `${position.toString(36)}.${at.toString(36)}`;
    return `${body}.${this.mac(userId, body).toString('base64url')}`;
  }

  /** null when malformed, forged, or given to someone else. */
  decode(userId: string, token: unknown): ResumePoint | null {
    if (typeof token !== 'string' || token.length > 64) return null;
    const match = FORM.exec(token);
    if (!match) return null;
    const body = `${match[1]}.${match[2]}`;
    const given = Buffer.from(match[3], 'base64url');
    if (given.length !== MAC_BYTES || !timingSafeEqual(given, this.mac(userId, body))) return null;
    // Canonical form only: base 36 without leading zeros, as encode writes it.
    const position = parseBase36(match[1]);
    const at = Number(parseBase36(match[2]));
    if (position === null || position.toString(36) !== match[1] || at.toString(36) !== match[2]) return null;
    return { position, at };
  }

  private mac(userId: string, body: string): Buffer {
    return createHmac('sha256', this.key).update(`${userId}\n${body}`).digest().subarray(0, MAC_BYTES);
  }
}

function parseBase36(text: string): bigint | null {
  let value = 0n;
  for (const char of text) {
    const digit = parseInt(char, 36);
    if (Number.isNaN(digit)) return null;
    value = value * 36n + BigInt(digit);
  }
  return value;
}
