import type { PushDevice, PushNotification } from '../push-provider';

/** FCM's limit on a message's payload. */
export const FCM_MAX_PAYLOAD_BYTES = 4096;
// FCM keeps an undelivered message at most four weeks.
const MAX_TTL_SECONDS = 28 * 24 * 3600;
const ELLIPSIS = '\u2026';

/** The HTTP v1 `messages:send` body (the fields this adapter sets). */
export interface FcmSendBody {
  message: {
    token: string;
    notification?: { title?: string; body: string };
    data: Record<string, string>;
    android: {
      priority: 'HIGH' | 'NORMAL';
      collapse_key: string;
      ttl: string;
      notification?: { tag: string; notification_count: number; channel_id?: string };
    };
    apns: {
      headers: Record<string, string>;
      payload: { aps: Record<string, unknown> };
    };
  };
}

export interface FcmRequestOptions {
  /** The Android notification channel the app created for these notifications, if any. */
  androidChannelId?: string | null;
}

/**
 * One provider-neutral notification as an FCM v1 message. Calls go data-only on Android (the
 * app's messaging service shows the incoming-call screen, which a system notification cannot),
 * with the title and body in `data` for that screen; iOS devices on FCM still get a visible alert.
 * The body is shortened, on a character boundary, until the payload fits FCM's 4096 bytes.
 */
export function buildFcmRequest(
  device: PushDevice,
  notification: PushNotification,
  now: number,
  options: FcmRequestOptions = {},
): FcmSendBody {
  const build = (body: string): FcmSendBody => shape(device, notification, body, now, options);
  const full = build(notification.body);
  if (payloadBytes(full) <= FCM_MAX_PAYLOAD_BYTES) return full;
  const chars = Array.from(notification.body);
  // The longest prefix that fits, by bisection: each candidate is measured as FCM would count it.
  let fits = 0;
  let tooLong = chars.length;
  while (tooLong - fits > 1) {
    const middle = Math.floor((fits + tooLong) / 2);
    if (payloadBytes(build(chars.slice(0, middle).join('') + ELLIPSIS)) <= FCM_MAX_PAYLOAD_BYTES) fits = middle;
    else tooLong = middle;
  }
  // Even an empty body may not fit (the data is too big); FCM then refuses it and the send fails.
  return build(fits === 0 ? ELLIPSIS : chars.slice(0, fits).join('') + ELLIPSIS);
}

/**
 * The payload size as checked against FCM's limit: the message without its target. Stricter than
 * FCM's own count (which leaves out some of the structure), so a message that passes here is not
 * refused as too big.
 */
export function payloadBytes(body: { message: object }): number {
  const { token: _token, topic: _topic, condition: _condition, ...rest } = body.message as Record<string, unknown>;
  return Buffer.byteLength(JSON.stringify(rest), 'utf8');
}

function shape(
  device: PushDevice,
  n: PushNotification,
  body: string,
  now: number,
  options: FcmRequestOptions,
): FcmSendBody {
  const isCall = n.kind === 'call';
  const high = n.priority === 'high';
  const ttlSeconds = Math.min(MAX_TTL_SECONDS, Math.max(0, Math.ceil((n.expiresAt - now) / 1000)));
  const title = n.title ?? undefined;
  const alert = { ...(title !== undefined ? { title } : {}), body };
  const data = isCall
    ? {
        ...n.data,
        ...(title !== undefined && n.data.title === undefined ? { title } : {}),
        ...(n.data.body === undefined ? { body } : {}),
      }
    : { ...n.data };
  return {
    message: {
      token: device.token,
      ...(isCall ? {} : { notification: alert }),
      data,
      android: {
        priority: high ? 'HIGH' : 'NORMAL',
        collapse_key: n.eventId,
        ttl: `${ttlSeconds}s`,
        ...(isCall
          ? {}
          : {
              notification: {
                tag: n.eventId,
                notification_count: n.badge,
                ...(options.androidChannelId ? { channel_id: options.androidChannelId } : {}),
              },
            }),
      },
      apns: {
        headers: {
          'apns-collapse-id': n.eventId,
          'apns-priority': high ? '10' : '5',
          'apns-expiration': String(Math.floor(n.expiresAt / 1000)),
          'apns-push-type': 'alert',
        },
        payload: {
          aps: {
            ...(isCall ? { alert } : {}),
            badge: n.badge,
            'thread-id': n.threadId,
            sound: 'default',
          },
        },
      },
    },
  };
}
