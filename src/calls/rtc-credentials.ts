import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { genUserSig, providerUserId } from './user-sig';
import { RuntimeSettingsService } from '../settings/runtime-settings.service';

/**
 * Lifetime of a UserSig. TRTC checks it when a client enters a room (and when its SDK enters
 * again after a network loss), so it must outlive the longest call: a day covers any sane
 * call with its reconnections. It is kept far below the 180 days of Tencent's examples
 * because a UserSig is not bound to a room: its holder can enter any room of the application
 * as that user, so a leaked one should stop working soon. Every start and accept issues a
 * fresh one, so nobody needs a longer one.
 */
export const USER_SIG_TTL_SECONDS = 24 * 3600;

/** Provider room IDs are uint32; TRTC reserves 4294967295. */
export const MIN_ROOM_ID = 1;
export const MAX_ROOM_ID = 4294967294;

/** What a client needs to enter the provider's room (API field names). */
export interface RtcCredentials {
  sdk_app_id: number;
  /** The provider user ID (`u<internal id>`), the name room callbacks use. */
  user_id: string;
  user_sig: string;
  room_id: number;
  /** Unix seconds; the UserSig's `TLS.time + TLS.expire`. */
  expire_at: number;
}

/** Earliest plausible millisecond clock reading (2001-09-09): a seconds value is far below it. */
const MIN_NOW_MS = 1e12;

@Injectable()
export class RtcCredentialsService {
  private readonly secretKey: string;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly settings: RuntimeSettingsService,
  ) {
    this.secretKey = config.rtc.secretKey;
  }

  /** The application ID in force (the admin console may change it; RTC_SECRET_KEY must belong to it). */
  private get sdkAppId(): number {
    return Number(this.settings.current.rtc.sdkAppId);
  }

  /**
   * Credentials of one user for one call's room. `nowMs` is the service clock (Clock.now(),
   * milliseconds); the UserSig counts whole seconds from it.
   */
  issue(internalUserId: string, roomId: number, nowMs: number): RtcCredentials {
    // Production refuses to boot without the key and development generates one; only a bare
    // test configuration lacks it, and an empty HMAC key must never sign.
    if (this.secretKey === '') throw new Error('RTC_SECRET_KEY is not configured');
    if (!Number.isSafeInteger(this.sdkAppId) || this.sdkAppId <= 0) throw new Error('RTC_SDK_APP_ID is not configured');
    if (!Number.isInteger(roomId) || roomId < MIN_ROOM_ID || roomId > MAX_ROOM_ID)
      throw new Error(`room ID must be an integer from ${MIN_ROOM_ID} to ${MAX_ROOM_ID}`);
    if (!Number.isSafeInteger(nowMs) || nowMs < MIN_NOW_MS) throw new Error('issue() takes the clock in milliseconds');

    const now = Math.floor(nowMs / 1000);
    const userId = providerUserId(internalUserId);
    const userSig = genUserSig({
      sdkAppId: this.sdkAppId,
      key: this.secretKey,
      identifier: userId,
      expireSeconds: USER_SIG_TTL_SECONDS,
      now,
    });
    return {
      sdk_app_id: this.sdkAppId,
      user_id: userId,
      user_sig: userSig,
      room_id: roomId,
      expire_at: now + USER_SIG_TTL_SECONDS,
    };
  }
}
