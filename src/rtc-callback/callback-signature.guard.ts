import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { createHmac } from 'node:crypto';
import { CallbackRejectedError } from '../common/app-error';
import { Clock } from '../common/clock';
import { secureEqual } from '../common/secure-compare';
import { RuntimeSettingsService } from '../settings/runtime-settings.service';
import { inexactIntegerPaths } from './callback-content';
import { InexactNumbers, checkCallbackTs } from './room-callback';

export interface VerifiedCallback {
  raw: Buffer;
  body: Record<string, unknown>;
  callbackTs: number;
  /** Integer fields written with a fraction or exponent, which JSON.parse hides. */
  inexactNumbers: InexactNumbers;
}

export interface CallbackRequest extends Request {
  verifiedCallback?: VerifiedCallback;
}

const MAX_SIGN_LENGTH = 128;
// TRTC sends UTF-8; bytes that are not UTF-8 would be stored as replacement characters.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Base64 HMAC-SHA256 of the exact received bytes (spec 5.9). */
export function signCallback(raw: Buffer | string, secret: string): string {
  return createHmac('sha256', secret).update(raw).digest('base64');
}

/**
 * The room callback's only credential: `SdkAppId` must be ours and `Sign` the HMAC of the raw
 * bytes under the callback key (or, during a rotation set in the admin console, the next key), both compared in constant time, before the body is parsed; then `CallbackTs` must be
 * within five minutes. Any failure is HTTP 403 `{"code":1}`.
 */
@Injectable()
export class CallbackSignatureGuard implements CanActivate {
  constructor(
    private readonly settings: RuntimeSettingsService,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<CallbackRequest>();
    const appId = request.headers['sdkappid'];
    const sign = request.headers['sign'];
    const raw = request.body as unknown;
    const rtc = this.settings.current.rtc;
    if (typeof appId !== 'string' || !secureEqual(appId, rtc.sdkAppId))
      throw new CallbackRejectedError('SdkAppId mismatch');
    if (typeof sign !== 'string' || sign.length === 0 || sign.length > MAX_SIGN_LENGTH)
      throw new CallbackRejectedError('Sign missing or too long');
    if (!Buffer.isBuffer(raw) || raw.length === 0) throw new CallbackRejectedError('empty body');
    // During a key rotation both keys verify; both are always computed, so the time taken does
    // not tell which key matched.
    const current = secureEqual(sign, signCallback(raw, rtc.callbackKey));
    const next = rtc.nextCallbackKey !== null && secureEqual(sign, signCallback(raw, rtc.nextCallbackKey));
    if (!current && !next) throw new CallbackRejectedError('signature mismatch');

    let text: string;
    let body: unknown;
    try {
      text = UTF8.decode(raw);
      // JSON.parse is iterative in V8: even 64 KiB of nesting cannot overflow the stack.
      body = JSON.parse(text);
    } catch {
      throw new CallbackRejectedError('body is not UTF-8 JSON');
    }
    const inexactNumbers = inexactIntegerPaths(text);
    const callbackTs = checkCallbackTs(body, this.clock.now(), inexactNumbers);
    request.verifiedCallback = { raw, body: body as Record<string, unknown>, callbackTs, inexactNumbers };
    return true;
  }
}
