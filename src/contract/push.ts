// Offline push (docs/push.md): the SDK's registration and settings, the keys of the data every
// notification carries to the app, and the admin console's provider status and test send.

/** The providers a registration can name; `apns_voip` is an iOS PushKit token (calls). */
export type PushProviderId = 'apns' | 'apns_voip' | 'fcm' | 'huawei' | 'xiaomi';
/** The device platforms push serves. */
export type PushPlatform = 'ios' | 'android' | 'harmony';
/** What a notification shows: sender and text, the sender only, or nothing but "New message". */
export type PushPreviewLevel = 'full' | 'sender' | 'none';

/** `POST /app/sdk/push/register`. */
export interface PushRegisterRequest {
  /** The installation's stable ID (the one the SDK sends elsewhere as device_id). */
  device_id: string;
  provider: PushProviderId;
  /** The provider's device token (APNs: hex; FCM, Huawei, Xiaomi: their registration token). */
  token: string;
  platform: PushPlatform;
  /** The app's bundle ID (iOS) or package name (Android, HarmonyOS). */
  package_name?: string;
  app_version?: string;
  /** BCP 47, e.g. "zh-CN": the language of the generic texts (a preview hidden by the user's level). */
  locale?: string;
}

/** `POST /app/sdk/push/unregister`: every provider of the device, or one. */
export interface PushUnregisterRequest {
  device_id: string;
  provider?: PushProviderId;
}

/** Quiet hours in the user's own time zone: no notification from `start` to `end` (may cross midnight). */
export interface QuietHours {
  /** "HH:MM", 24-hour. */
  start: string;
  /** "HH:MM", 24-hour; equal to start: all day. */
  end: string;
  /** IANA time zone, e.g. "Asia/Shanghai". */
  timezone: string;
}

/** `POST /app/sdk/push/settings`: both fields, null for the default (no quiet hours, the service's preview level). */
export interface PushSettingsRequest {
  preview: PushPreviewLevel | null;
  quiet_hours: QuietHours | null;
}

export interface PushRegistrationReply {
  device_id: string;
  provider: PushProviderId;
  platform: PushPlatform;
  /** Unix ms of this registration (a re-registration of the same token renews it). */
  registered_at: number;
}

export interface PushUnregisterReply {
  /** Registrations removed (0 when there were none: unregistering twice is not an error). */
  removed: number;
}

export interface PushSettingsReply {
  /** The user's choice; null: the service's default (PUSH_PREVIEW_DEFAULT). */
  preview: PushPreviewLevel | null;
  /** What applies now: the user's choice or the default. */
  effective_preview: PushPreviewLevel;
  quiet_hours: QuietHours | null;
  /** The user's registered devices. */
  devices: PushRegistrationReply[];
}

/** What a notification is about: the app opens the screen from it. */
export type PushNotificationType = 'message' | 'call' | 'friend_request' | 'group_invitation' | 'test';

/**
 * The custom data of every notification (APNs: top-level keys beside `aps`; FCM and Huawei:
 * `data`; Xiaomi: `payload`). String values only, as the providers require.
 */
export interface PushData {
  type: PushNotificationType;
  /** The outbox event's ID: also the provider's collapse key, so one event shows once. */
  event_id: string;
  /** The recipient's own conversation ID (message, call, group invitation); absent at preview level `none`. */
  conversation_id?: string;
  /** message: the message ID (absent at `none`). */
  message_id?: string;
  /** message: the conversation position, for the SDK to fetch up to it. */
  conversation_seq?: string;
  /** call: the call ID and media (audio, video). */
  call_id?: string;
  media?: string;
  /** friend_request: the request ID. */
  request_id?: string;
  /** group_invitation: the group ID (absent at `none`). */
  group_id?: string;
  /** The sender, caller or inviter (external user ID); absent when the preview level hides it. */
  sender_id?: string;
}

/** One provider as the admin console shows it. */
export interface PushProviderStatusReply {
  provider: string;
  /** The registration kinds it serves. */
  serves: PushProviderId[];
  configured: boolean;
  concurrency: number;
  in_flight: number;
  /** Notifications waiting (first attempt or a retry). */
  pending: number;
  last_success_at: number | null;
  last_failure_at: number | null;
  /** The provider's reason for the last failure (never a token). */
  last_failure: string | null;
  registrations: number;
  /**
   * This instance has had a long run of dead-token answers and no delivery: it keeps the
   * registrations instead of removing them (nearly always the service's own configuration).
   */
  keeping_dead_tokens: boolean;
}

export interface PushStatusReply {
  providers: PushProviderStatusReply[];
  preview_default: PushPreviewLevel;
  /** Events sequenced after the dispatcher's place in the outbox (0 without a configured provider). */
  lag_events: number;
}

/** `POST /app/admin/push/test`. */
export interface PushTestRequest {
  user_id: string;
  /** Shown text; default "Test notification". */
  text?: string;
}

export interface PushTestDeviceReply {
  device_id: string;
  provider: PushProviderId;
  outcome: 'sent' | 'dead_token' | 'retry' | 'failed' | 'not_configured';
  status: number | null;
  reason: string | null;
}

export interface PushTestReply {
  devices: PushTestDeviceReply[];
}
