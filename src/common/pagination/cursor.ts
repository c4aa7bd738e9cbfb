import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { AppError } from '../app-error';
import type { CursorPageReply } from './cursor-page.reply';

/**
 * Opaque, tamper-proof list cursors (spec 4: "the cursor embeds account and filters and cannot
 * be reused across accounts, endpoints or changed filters"). A cursor is
 * base64url(JSON {u, e, f, k}) "." base64url(HMAC-SHA256), where u is the account, e the
 * endpoint, f a digest of the filters and k the keyset position to continue after.
 */
export class CursorCodec {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'im-sdk-cursor', 'list cursors v1', 32));
  }

  encode<K>(account: string, endpoint: string, filters: Record<string, unknown>, position: K): string {
    const body = Buffer.from(
      JSON.stringify({ u: account, e: endpoint, f: filterDigest(filters), k: position }),
    ).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  /** The keyset position, or a 1004 naming `cursor` when the cursor is not valid here. */
  decode<K>(cursor: string, account: string, endpoint: string, filters: Record<string, unknown>): K {
    const invalid = AppError.invalid(
      'cursor',
      'is not valid for this account, endpoint and filters; pass next_cursor unchanged',
    );
    // Validation should have refused anything but a string; a caller that let one through
    // still gets a 1004, not a TypeError.
    if (typeof cursor !== 'string') throw invalid;
    const [body, signature, extra] = cursor.split('.');
    if (!body || !signature || extra !== undefined) throw invalid;
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid;
    let payload: { u?: unknown; e?: unknown; f?: unknown; k?: unknown };
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as typeof payload;
    } catch {
      throw invalid;
    }
    if (
      payload.u !== account ||
      payload.e !== endpoint ||
      payload.f !== filterDigest(filters) ||
      payload.k === undefined
    )
      throw invalid;
    return payload.k as K;
  }

  private sign(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}

function filterDigest(filters: Record<string, unknown>): string {
  const canonical = JSON.stringify(
    Object.keys(filters)
      .sort()
      .map((key) => [key, filters[key] ?? null]),
  );
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
}

/** Every directory list answers this shape. */
export type Page<T> = CursorPageReply & { items: T[] };
