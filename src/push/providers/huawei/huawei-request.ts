import { notifyIdFromEvent } from '../notify-id';
import { parseJsonObject, withoutToken } from '../provider-answers';
import type { PushKind, PushNotification } from '../push-provider';

/**
 * Pure shaping for Huawei Push Kit — v1 (POST {base}/v1/{appId}/messages:send, HMS on Android) and
 * v3 (POST {base}/v3/{projectId}/messages:send, HarmonyOS NEXT) — and the classification of their
 * answers, which share one {code, msg, requestId} format. No I/O here, so it is unit-tested directly.
 */

/** Huawei keeps an undelivered message at most 15 days. */
export const HUAWEI_MAX_TTL_SECONDS = 15 * 24 * 3600;
/** android.notification.badge.set_num accepts 0-99. */
export const HUAWEI_MAX_BADGE = 99;

export interface HuaweiShapeOptions {
  /** Launcher activity class; without it Huawei ignores a badge, so none is sent. */
  badgeClass: string | null;
  /** Title used when the notification's own is hidden by the user's preview level. */
  genericTitle: string;
  now: number;
}

export interface HuaweiAndroidNotification {
  title: string;
  body: string;
  /** Huawei replaces a shown notification with a later one of the same tag: the dedupe key. */
  tag: string;
  click_action: { type: 3 };
  importance: 'NORMAL';
  badge?: { set_num: number; class: string };
}

export interface HuaweiV1Body {
  validate_only: false;
  message: {
    token: [string];
    data?: string;
    android: {
      /** -1: deliver every cached message when the device comes online, not only the newest. */
      collapse_key: -1;
      urgency: 'HIGH' | 'NORMAL';
      category: 'IM' | 'VOIP';
      ttl: string;
      notification: HuaweiAndroidNotification;
    };
  };
}

/** Huawei's self-classification: calls are VOIP, everything else a user sees here is social messaging (IM). */
export function huaweiCategory(kind: PushKind): 'IM' | 'VOIP' {
  return kind === 'call' ? 'VOIP' : 'IM';
}

/** Seconds left before `expiresAt`, capped at Huawei's maximum; null when already expired. */
export function huaweiTtlSeconds(expiresAt: number, now: number): number | null {
  const seconds = Math.floor((expiresAt - now) / 1000);
  if (seconds < 1) return null;
  return Math.min(seconds, HUAWEI_MAX_TTL_SECONDS);
}

/** The v1 request body for one device, or null when the notification has already expired. */
export function buildHuaweiV1Body(
  token: string,
  notification: PushNotification,
  options: HuaweiShapeOptions,
): HuaweiV1Body | null {
  const ttl = huaweiTtlSeconds(notification.expiresAt, options.now);
  if (ttl === null) return null;
  const android: HuaweiAndroidNotification = {
    title: notification.title ?? options.genericTitle,
    body: notification.body,
    tag: notification.eventId,
    click_action: { type: 3 },
    importance: 'NORMAL',
  };
  if (options.badgeClass) {
    android.badge = {
      set_num: Math.max(0, Math.min(HUAWEI_MAX_BADGE, Math.floor(notification.badge))),
      class: options.badgeClass,
    };
  }
  const body: HuaweiV1Body = {
    validate_only: false,
    message: {
      token: [token],
      android: {
        collapse_key: -1,
        urgency: notification.priority === 'high' ? 'HIGH' : 'NORMAL',
        category: huaweiCategory(notification.kind),
        ttl: `${ttl}s`,
        notification: android,
      },
    },
  };
  if (Object.keys(notification.data).length > 0) body.message.data = JSON.stringify(notification.data);
  return body;
}

/** Push Kit v3 (HarmonyOS NEXT) body for an alert (header `push-type: 0`) to one token. */
export interface HuaweiV3Body {
  payload: {
    notification: {
      category: 'IM' | 'VOIP';
      title: string;
      body: string;
      /** actionType 0 opens the app's home ability; `data` reaches it as want parameters. */
      clickAction: { actionType: 0; data?: Record<string, string> };
      /** A shown notification with the same notifyId is replaced: the dedupe key. */
      notifyId: number;
      badge?: { setNum: number };
    };
  };
  target: { token: [string] };
  pushOptions: { ttl: number };
}

/** The v3 notifyId of an event: shown once however often it is re-sent. */
export const huaweiNotifyId = notifyIdFromEvent;

/** The v3 request body for one HarmonyOS NEXT device, or null when the notification has expired. */
export function buildHuaweiV3Body(
  token: string,
  notification: PushNotification,
  options: Omit<HuaweiShapeOptions, 'badgeClass'>,
): HuaweiV3Body | null {
  const ttl = huaweiTtlSeconds(notification.expiresAt, options.now);
  if (ttl === null) return null;
  const shown: HuaweiV3Body['payload']['notification'] = {
    category: huaweiCategory(notification.kind),
    title: notification.title ?? options.genericTitle,
    body: notification.body,
    clickAction: { actionType: 0 },
    notifyId: huaweiNotifyId(notification.eventId),
    // HarmonyOS shows the badge without a launcher class (unlike HMS on Android).
    badge: { setNum: Math.max(0, Math.min(HUAWEI_MAX_BADGE, Math.floor(notification.badge))) },
  };
  if (Object.keys(notification.data).length > 0) shown.clickAction.data = { ...notification.data };
  return { payload: { notification: shown }, target: { token: [token] }, pushOptions: { ttl } };
}

/** What one send answer means, before the adapter decides whether to refresh its access token. */
export type HuaweiVerdict =
  | { kind: 'sent'; requestId?: string }
  | { kind: 'dead_token'; reason: string }
  | { kind: 'auth'; reason: string }
  | { kind: 'retry'; reason: string }
  | { kind: 'failed'; reason: string };

// 80200001 authentication error, 80200003 OAuth token expired (v1), 80200005 JWT expired (v3).
const AUTH_CODES = new Set(['80200001', '80200003', '80200005']);
// 81000001: Huawei's internal error; 80600003: Push Kit failed to reach its own OAuth service.
const RETRY_CODES = new Set(['81000001', '80600003']);

/**
 * Classifies a v1 answer. The business code decides when there is one (Huawei pairs it with
 * 200, 400, 401, 403 or 5xx); the HTTP status decides otherwise. `token` is only compared,
 * never echoed: the reason strings stay secret-free.
 */
export function classifyHuaweiAnswer(status: number, rawBody: string, token: string): HuaweiVerdict {
  const parsed = parseJsonObject(rawBody);
  const code = typeof parsed?.code === 'string' || typeof parsed?.code === 'number' ? String(parsed.code) : null;
  const msg = typeof parsed?.msg === 'string' ? parsed.msg : '';
  const requestId = typeof parsed?.requestId === 'string' ? parsed.requestId : undefined;
  if (code === null) {
    if (status === 401) return { kind: 'auth', reason: 'HTTP 401 from Huawei' };
    if (status === 429 || status >= 500) return { kind: 'retry', reason: `HTTP ${status} from Huawei` };
    if (status >= 200 && status < 300)
      return { kind: 'failed', reason: `HTTP ${status} from Huawei without a result code` };
    return { kind: 'failed', reason: `HTTP ${status} from Huawei` };
  }
  if (code === '80000000') return requestId ? { kind: 'sent', requestId } : { kind: 'sent' };
  if (code === '80100000') {
    // Partial success: msg is itself JSON, {"success":n,"failure":n,"illegal_tokens":[...]}.
    const detail = parseJsonObject(msg);
    const illegal = Array.isArray(detail?.illegal_tokens) ? (detail.illegal_tokens as unknown[]) : [];
    if (illegal.includes(token))
      return { kind: 'dead_token', reason: 'Huawei 80100000: token listed in illegal_tokens' };
    return requestId ? { kind: 'sent', requestId } : { kind: 'sent' };
  }
  if (code === '80300007') return { kind: 'dead_token', reason: 'Huawei 80300007: all tokens are invalid' };
  const described = `Huawei ${code}${msg ? `: ${withoutToken(msg, token, 'token')}` : ''} (HTTP ${status})`;
  if (AUTH_CODES.has(code)) return { kind: 'auth', reason: described };
  if (RETRY_CODES.has(code) || status === 429 || status >= 500) return { kind: 'retry', reason: described };
  return { kind: 'failed', reason: described };
}

/** The OAuth token endpoint's answer: an access token and its lifetime, or why not. */
export type HuaweiTokenAnswer =
  | { kind: 'token'; accessToken: string; expiresInSec: number }
  | { kind: 'retry'; reason: string }
  | { kind: 'failed'; reason: string };

export function classifyHuaweiTokenAnswer(status: number, rawBody: string): HuaweiTokenAnswer {
  const parsed = parseJsonObject(rawBody);
  if (status === 200 && typeof parsed?.access_token === 'string' && parsed.access_token) {
    const expiresIn = Number(parsed.expires_in);
    return {
      kind: 'token',
      accessToken: parsed.access_token,
      expiresInSec: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : 3600,
    };
  }
  const error = parsed?.error !== undefined ? ` error ${String(parsed.error)}` : '';
  const sub = parsed?.sub_error !== undefined ? ` sub_error ${String(parsed.sub_error)}` : '';
  const reason = `Huawei OAuth HTTP ${status}${error}${sub}`;
  if (status === 429 || status >= 500) return { kind: 'retry', reason };
  return { kind: 'failed', reason: status === 200 ? `${reason}: no access_token in the answer` : reason };
}
