/**
 * The contract between the push dispatcher and one provider's adapter (APNs, FCM, Huawei,
 * Xiaomi; Honor, OPPO and vivo fit the same shape). The dispatcher decides who gets what; an
 * adapter only turns one provider-neutral notification into its provider's request and its
 * provider's answer into a PushResult.
 */

/** The providers a registration can name. `apns_voip` is a PushKit token, sent through the APNs adapter. */
export const PUSH_PROVIDERS = ['apns', 'apns_voip', 'fcm', 'huawei', 'xiaomi'] as const;
export type PushProviderName = (typeof PUSH_PROVIDERS)[number];

/** What a notification is about; the app decides the screen from `data.type`. */
export type PushKind = 'message' | 'call' | 'friend_request' | 'group_invitation' | 'test';

/** One notification to one device, before any provider's shaping. */
export interface PushNotification {
  /**
   * The outbox event's ID (a UUID). Every adapter uses it as the provider's collapse or
   * deduplication key (APNs `apns-collapse-id`, FCM `collapse_key`/`tag`, Huawei `tag`,
   * Xiaomi `notify_id` derived from it), so a notification re-sent after a crash shows once.
   */
  eventId: string;
  kind: PushKind;
  /**
   * high: calls and messages (time-sensitive and shown; a call goes as a VoIP push where the
   * device registered an `apns_voip` token); normal: friend requests and group invitations.
   */
  priority: 'high' | 'normal';
  /** Shown title; null when the user's preview level hides the sender (a generic title is used). */
  title: string | null;
  /** Shown text: the preview, or a generic line such as "New message". */
  body: string;
  /** The user's unread total (not capped at 100). */
  badge: number;
  /** Groups notifications per conversation (APNs thread-id, Android notification group/tag prefix). */
  threadId: string;
  /** Delivered to the app untouched: conversation_id, event_id, type and the like; string values only. */
  data: Record<string, string>;
  /** Unix ms after which the provider should drop the notification rather than deliver it late. */
  expiresAt: number;
}

/** The device a notification goes to, as registered. */
export interface PushDevice {
  provider: PushProviderName;
  token: string;
  /** The app's package (Android) or bundle ID (iOS) when the SDK sent one; adapters may need it (Xiaomi). */
  packageName: string | null;
  /** The device's platform as registered (Huawei sends HarmonyOS devices through its HarmonyOS API). */
  platform?: 'android' | 'ios' | 'harmony';
}

/**
 * A provider's answer, classified:
 * - sent: accepted by the provider.
 * - dead_token: the token will never work again (APNs 410/BadDeviceToken, FCM UNREGISTERED,
 *   Huawei and Xiaomi invalid-token codes); the registration is removed.
 * - retry: worth trying again later (429, 5xx, timeouts, network errors, an expired access
 *   token); `retryAfterMs` when the provider said how long to wait.
 * - failed: will not work by retrying (a malformed request, bad credentials): recorded, not retried.
 */
export type PushResult =
  | { outcome: 'sent'; status: number | null; providerId?: string }
  | { outcome: 'dead_token'; status: number | null; reason: string }
  | { outcome: 'retry'; status: number | null; reason: string; retryAfterMs?: number }
  | { outcome: 'failed'; status: number | null; reason: string };

/** One provider adapter. It holds its own connections and access tokens; `send` never throws. */
export interface PushProvider {
  /** The registrations it serves (APNs serves apns and apns_voip). */
  readonly serves: readonly PushProviderName[];
  /** A short, secret-free label for logs, metrics and the console: "apns", "fcm", "huawei", "xiaomi". */
  readonly name: string;
  send(device: PushDevice, notification: PushNotification): Promise<PushResult>;
  /** Closes connections (HTTP/2 sessions, keep-alive sockets). */
  close(): Promise<void>;
}
