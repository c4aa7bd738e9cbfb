import { notifyIdFromEvent } from '../notify-id';
import { parseJsonObject, withoutToken } from '../provider-answers';
import type { PushNotification } from '../push-provider';

/**
 * Pure shaping for Xiaomi Mi Push's POST {base}/v3/message/regid (form-urlencoded) and the
 * classification of its answers. No I/O here, so it is unit-tested directly.
 */

/** Xiaomi: title under 50 characters, description under 128 (each CJK or Latin character counts 1). */
export const XIAOMI_MAX_TITLE = 49;
export const XIAOMI_MAX_DESCRIPTION = 127;
/** Xiaomi keeps a message for an offline device at most two weeks (private-message channel: 10 days). */
export const XIAOMI_MAX_TTL_MS = 14 * 24 * 3600 * 1000;

export interface XiaomiShapeOptions {
  packageName: string;
  channelId: string | null;
  genericTitle: string;
  now: number;
}

/**
 * The notify_id of an event. Xiaomi replaces a shown notification with a later one of the same
 * notify_id, so a re-send shows once.
 */
export const xiaomiNotifyId = notifyIdFromEvent;

/** Cuts by code points (Xiaomi counts characters), ending with an ellipsis when cut. */
function clip(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** The form fields for one device, or null when the notification has already expired. */
export function buildXiaomiForm(
  regId: string,
  notification: PushNotification,
  options: XiaomiShapeOptions,
): URLSearchParams | null {
  const ttl = Math.min(notification.expiresAt - options.now, XIAOMI_MAX_TTL_MS);
  if (ttl < 1000) return null;
  const title = (notification.title ?? '').trim() ? (notification.title as string) : options.genericTitle;
  const description = notification.body.trim() ? notification.body : title;
  const form = new URLSearchParams();
  form.set('registration_id', regId);
  form.set('restricted_package_name', options.packageName);
  form.set('pass_through', '0');
  form.set('title', clip(title, XIAOMI_MAX_TITLE));
  form.set('description', clip(description, XIAOMI_MAX_DESCRIPTION));
  form.set('payload', JSON.stringify(notification.data));
  // -1 (DEFAULT_ALL): the device's default sound, vibration and light.
  form.set('notify_type', '-1');
  form.set('notify_id', String(xiaomiNotifyId(notification.eventId)));
  form.set('time_to_live', String(Math.floor(ttl)));
  // 1: a tap opens the app's launcher activity; the app reads `payload` for the screen.
  form.set('extra.notify_effect', '1');
  form.set('extra.notify_foreground', '1');
  if (options.channelId) form.set('extra.channel_id', options.channelId);
  return form;
}

export type XiaomiVerdict =
  | { kind: 'sent'; messageId?: string }
  | { kind: 'dead_token'; reason: string }
  | { kind: 'retry'; reason: string }
  | { kind: 'failed'; reason: string };

// Xiaomi's server error codes (dev.mi.com "服务端错误码参考"): internal errors, "system busy",
// "remote service error", per-app call rate and daily quota, push-internal call failures.
const RETRY_CODES = new Set([-1, 1, 10001, 10002, 10003, 10027, 10034, 26003, 65029]);

/**
 * Classifies an answer. Xiaomi answers 200 with {result, code, description, reason, data} for
 * business outcomes; `token` is only compared, never echoed, so reasons stay secret-free.
 */
export function classifyXiaomiAnswer(status: number, rawBody: string, token: string): XiaomiVerdict {
  const parsed = parseJsonObject(rawBody);
  const code = parsed && parsed.code !== undefined ? Number(parsed.code) : NaN;
  if (!Number.isFinite(code)) {
    if (status === 429 || status >= 500) return { kind: 'retry', reason: `HTTP ${status} from Xiaomi` };
    return { kind: 'failed', reason: `HTTP ${status} from Xiaomi without a result code` };
  }
  const data = parsed?.data && typeof parsed.data === 'object' ? (parsed.data as Record<string, unknown>) : {};
  if (code === 0 && parsed?.result !== 'error') {
    if (badRegIds(data.bad_regids).includes(token)) {
      return { kind: 'dead_token', reason: 'Xiaomi code 0: registration ID listed in bad_regids' };
    }
    return typeof data.id === 'string' ? { kind: 'sent', messageId: data.id } : { kind: 'sent' };
  }
  const reasonText = typeof parsed?.reason === 'string' ? parsed.reason : '';
  const described = `Xiaomi ${code}${reasonText ? `: ${withoutToken(reasonText, token, 'regid')}` : ''} (HTTP ${status})`;
  // 20301 is "send failed"; for a single regid its reason "No valid targets!" means the regid is unknown or unregistered.
  if (code === 20301 && /valid target|regid/i.test(reasonText)) return { kind: 'dead_token', reason: described };
  if (RETRY_CODES.has(code) || status === 429 || status >= 500) return { kind: 'retry', reason: described };
  return { kind: 'failed', reason: described };
}

/** bad_regids comes as a comma-separated string; an array is accepted too. */
function badRegIds(value: unknown): string[] {
  if (typeof value === 'string') return value.split(',').map((id) => id.trim());
  if (Array.isArray(value)) return value.filter((id): id is string => typeof id === 'string');
  return [];
}
