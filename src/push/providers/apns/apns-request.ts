import { createHash } from 'node:crypto';
import type { PushDevice, PushNotification } from '../push-provider';

/** Apple's payload limits: 4 KB for a remote notification, 5 KB for a VoIP push. */
export const APNS_MAX_PAYLOAD_BYTES = 4096;
export const APNS_MAX_VOIP_PAYLOAD_BYTES = 5120;
export const APNS_MAX_COLLAPSE_ID_BYTES = 64;

export interface ApnsRequest {
  /** HTTP/2 headers, pseudo-headers included. */
  headers: Record<string, string>;
  /** The JSON payload. */
  body: string;
  /** The body exceeds Apple's limit even with the alert text cut away (the data alone is too large). */
  tooLarge: boolean;
}

export interface ApnsRequestOptions {
  /** The app's bundle ID; VoIP pushes go to `<topic>.voip`. */
  topic: string;
  /** The provider token (JWT). */
  jwt: string;
}

/** Shapes one notification for one apns or apns_voip device. Pure. */
export function buildApnsRequest(
  device: PushDevice,
  notification: PushNotification,
  options: ApnsRequestOptions,
): ApnsRequest {
  const voip = device.provider === 'apns_voip';
  const headers: Record<string, string> = {
    ':method': 'POST',
    ':path': `/3/device/${device.token}`,
    authorization: `bearer ${options.jwt}`,
    'apns-topic': voip ? `${options.topic}.voip` : options.topic,
    'apns-push-type': voip ? 'voip' : 'alert',
    // Apple: 10 (immediate) is what alert and VoIP pushes use; 5 is for background updates.
    'apns-priority': '10',
    'apns-expiration': String(Math.max(0, Math.floor(notification.expiresAt / 1000))),
    'apns-collapse-id': collapseId(notification.eventId),
  };
  if (voip) {
    // The app's PushKit handler reports the call to CallKit from the data; there is nothing to show.
    const body = JSON.stringify({ ...notification.data });
    return { headers, body, tooLarge: byteLength(body) > APNS_MAX_VOIP_PAYLOAD_BYTES };
  }
  return { headers, ...alertBody(notification) };
}

function alertBody(notification: PushNotification): { body: string; tooLarge: boolean } {
  const render = (title: string | null, text: string): string => {
    const alert: Record<string, string> = {};
    if (title !== null) alert.title = title;
    alert.body = text;
    const { aps: _ignored, ...data } = notification.data;
    return JSON.stringify({
      aps: {
        alert,
        badge: notification.badge,
        sound: 'default',
        'thread-id': notification.threadId,
        // Lets a notification service extension decrypt or enrich the alert before it shows.
        'mutable-content': 1,
      },
      ...data,
    });
  };
  const fits = (body: string): boolean => byteLength(body) <= APNS_MAX_PAYLOAD_BYTES;

  const whole = render(notification.title, notification.body);
  if (fits(whole)) return { body: whole, tooLarge: false };
  const text = cut(notification.body, (kept) => fits(render(notification.title, kept)));
  if (text !== null) return { body: render(notification.title, text), tooLarge: false };
  const title = notification.title === null ? null : cut(notification.title, (kept) => fits(render(kept, '')));
  if (title !== null) return { body: render(title, ''), tooLarge: false };
  return { body: whole, tooLarge: true };
}

/**
 * The longest prefix of `text` (whole code points, so a surrogate pair is never split), followed
 * by an ellipsis, that `fits`; '' if only that fits; null if not even that.
 */
function cut(text: string, fits: (candidate: string) => boolean): string | null {
  const points = Array.from(text);
  const candidate = (n: number): string => (n === 0 ? '' : `${points.slice(0, n).join('')}…`);
  if (!fits('')) return null;
  // JSON escaping makes the size of a prefix not a sum of its characters: search on the rendered size.
  let low = 0;
  let high = points.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(candidate(middle))) low = middle;
    else high = middle - 1;
  }
  return candidate(low);
}

/** Apple's limit is 64 bytes; a UUID is 36. A longer ID is hashed, which keeps it a dedupe key. */
function collapseId(eventId: string): string {
  if (byteLength(eventId) <= APNS_MAX_COLLAPSE_ID_BYTES) return eventId;
  return createHash('sha256').update(eventId).digest('hex');
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
