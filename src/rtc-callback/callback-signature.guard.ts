import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { createHmac } from 'node:crypto';
import { CallbackRejectedError } from '../common/app-error';
import { Clock } from '../common/clock';
import { secureEqual } from '../common/secure-compare';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { checkCallbackTs } from './room-callback';

export interface VerifiedCallback {
  raw: Buffer;
  body: Record<string, unknown>;
  callbackTs: number;
}

export interface CallbackRequest extends Request {
  verifiedCallback?: VerifiedCallback;
}

const MAX_SIGN_LENGTH = 128;

/** Base64 HMAC-SHA256 of the exact received bytes (spec 5.9). */
export function signCallback(raw: Buffer | string, secret: string): string {
  return createHmac('sha256', secret).update(raw).digest('base64');
}

/**
 * The room callback's only credential: `SdkAppId` must be ours and `Sign` the HMAC of the raw
 * bytes, both compared in constant time, before the body is parsed; then `CallbackTs` must be
 * within five minutes. Any failure is HTTP 403 `{"code":1}`.
 */
@Injectable()
export class CallbackSignatureGuard implements CanActivate {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<CallbackRequest>();
    const appId = request.headers['sdkappid'];
    const sign = request.headers['sign'];
    const raw = request.body as unknown;
    if (typeof appId !== 'string' || !secureEqual(appId, this.config.rtc.sdkAppId)) throw new CallbackRejectedError('SdkAppId mismatch');
    if (typeof sign !== 'string' || sign.length === 0 || sign.length > MAX_SIGN_LENGTH) throw new CallbackRejectedError('Sign missing or too long');
    if (!Buffer.isBuffer(raw) || raw.length === 0) throw new CallbackRejectedError('empty body');
    if (!secureEqual(sign, signCallback(raw, this.config.rtc.callbackSecret))) throw new CallbackRejectedError('signature mismatch');

    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new CallbackRejectedError('body is not JSON');
    }
    const callbackTs = checkCallbackTs(body, this.clock.now());
    request.verifiedCallback = { raw, body: body as Record<string, unknown>, callbackTs };
    return true;
  }
}
