import type {
  PushProviderId,
  PushRegisterRequest,
  PushRegistrationReply,
  PushSettingsReply,
  PushSettingsRequest,
  PushUnregisterReply,
  PushUnregisterRequest,
} from '../../../../src/contract/index.js';
import { ImError } from '../errors.js';
import type { ErrorKind } from '../errors.js';
import type { ApiTransport } from './transport.js';

/** What `push.register` takes: the registration request without `device_id`, which the client supplies. */
export type PushRegistration = Omit<PushRegisterRequest, 'device_id'>;

/** What the client hears from the push namespace. */
export interface PushHooks {
  /** A registration sent again after a new credential failed (`push.failed`). */
  failed(provider: PushProviderId, error: ImError): void;
}

/** A registration this login made, and the credential it was last sent under. */
interface Remembered {
  registration: PushRegistration;
  /** The value of `PushApi.credential` when the request was sent. */
  credential: number;
}

/** Kinds of failure a later attempt cannot cure: the registration is forgotten. */
const FINAL_KINDS: ReadonlySet<ErrorKind> = new Set<ErrorKind>(['rejected', 'disabled', 'auth', 'invalid']);

/**
 * Offline push (docs/push.md): the provider token that the native side of a hybrid app (uni-app,
 * Capacitor, Cordova, Electron) obtained, registered for this device, and the user's preview
 * level and quiet hours. The device is {@link deviceId}, the one calls use.
 *
 * Registrations are remembered for the login: when the credential was renewed since one was
 * sent (a renewal ahead of expiry, or after the service revoked the user's tokens, which drops
 * their registrations), the next `connection.ready` sends it again. A failure of that automatic
 * registration is the SDK event `push.failed`. `logout()` forgets them: register again after
 * each `login()`, and at every start of the app.
 *
 * Refusals: 1004 names the field (a provider this service has no credentials for, a platform
 * the provider does not reach, a malformed token, device ID or time).
 */
export class PushApi {
  /** The `device_id` of every push request: `createClient({deviceId})`, else the client's random `web-…` ID. */
  readonly deviceId: string;
  private readonly remembered = new Map<PushProviderId, Remembered>();
  /** Counts this login's credentials: a renewal makes every registration sent before it due again. */
  private credential = 0;
  /** Counts logins: a reply that arrives after `reset` is not remembered. */
  private epoch = 0;
  /**
   * Registrations and unregistrations go one after another: the service keeps one token per
   * device and provider, so a late request with an older token must not land after a newer one.
   */
  private writes: Promise<unknown> = Promise.resolve();

  /** @hidden */
  constructor(
    private readonly transport: ApiTransport,
    deviceId: string,
    private readonly hooks: PushHooks,
  ) {
    this.deviceId = deviceId;
  }

  /**
   * Registers the provider's device token for this device (one registration per device and
   * provider: a new token replaces the previous one). Call it after every `login()` and whenever
   * the native side hands the app a new token. An iOS app that rings calls through PushKit
   * registers its VoIP token as well, as `apns_voip`.
   */
  register(registration: PushRegistration): Promise<PushRegistrationReply> {
    const kept: PushRegistration = { ...registration };
    return this.serial(async () => {
      const credential = this.credential;
      const epoch = this.epoch;
      const reply = await this.send(kept);
      if (epoch === this.epoch) this.remembered.set(kept.provider, { registration: kept, credential });
      return reply;
    });
  }

  /**
   * Removes this device's registrations, every provider's or one: call it before `logout()` when
   * the user signs out, so the device stops receiving this user's notifications. `removed` is 0
   * when there were none. The SDK stops registering them again at once, whatever the answer.
   */
  unregister(provider?: PushProviderId): Promise<PushUnregisterReply> {
    if (provider === undefined) this.remembered.clear();
    else this.remembered.delete(provider);
    const body: PushUnregisterRequest = { device_id: this.deviceId };
    if (provider !== undefined) body.provider = provider;
    return this.serial(() => this.transport.post<PushUnregisterReply>('/app/sdk/push/unregister', body));
  }

  /** The user's preview level (and the one in effect), quiet hours and registered devices. */
  getSettings(): Promise<PushSettingsReply> {
    return this.transport.get<PushSettingsReply>('/app/sdk/push/settings');
  }

  /**
   * Sets the preview level (`full`: sender and text; `sender`: who, not what; `none`: only "New
   * message") and the quiet hours (`{start, end, timezone}`, "HH:MM" in an IANA zone; crossing
   * midnight when `end` is earlier, all day when equal). Both fields, each null for the default;
   * answers the settings as `getSettings` does. Applies to every device of the user.
   */
  setSettings(settings: PushSettingsRequest): Promise<PushSettingsReply> {
    const body: PushSettingsRequest = { preview: settings.preview, quiet_hours: settings.quiet_hours };
    return this.transport.post<PushSettingsReply>('/app/sdk/push/settings', body);
  }

  /** @hidden The credential was renewed (same user). */
  renewed(): void {
    this.credential += 1;
  }

  /** @hidden A connection is ready: registrations sent before the current credential go again. */
  reconnected(): void {
    for (const [provider, entry] of this.remembered)
      if (entry.credential < this.credential) void this.serial(() => this.again(provider));
  }

  /** @hidden Logout or another user: nothing of this login is registered again. */
  reset(): void {
    this.epoch += 1;
    this.credential = 0;
    this.remembered.clear();
  }

  private async again(provider: PushProviderId): Promise<void> {
    // Checked when its turn comes: a newer register, an unregister or an earlier run may have settled it.
    const entry = this.remembered.get(provider);
    if (!entry || entry.credential >= this.credential) return;
    const credential = this.credential;
    const epoch = this.epoch;
    try {
      await this.send(entry.registration);
      if (epoch === this.epoch && this.remembered.get(provider) === entry) entry.credential = credential;
    } catch (error) {
      if (epoch !== this.epoch) return;
      const imError = error instanceof ImError ? error : new ImError('network', 0, String(error));
      if (imError.kind === 'stale') return;
      // A lost network or a busy service may pass by the next connection; a refusal will not.
      if (FINAL_KINDS.has(imError.kind) && this.remembered.get(provider) === entry) this.remembered.delete(provider);
      this.hooks.failed(provider, imError);
    }
  }

  private send(registration: PushRegistration): Promise<PushRegistrationReply> {
    const { provider, token, platform } = registration;
    const body: PushRegisterRequest = { device_id: this.deviceId, provider, token, platform };
    if (registration.package_name !== undefined) body.package_name = registration.package_name;
    if (registration.app_version !== undefined) body.app_version = registration.app_version;
    if (registration.locale !== undefined) body.locale = registration.locale;
    return this.transport.post<PushRegistrationReply>('/app/sdk/push/register', body);
  }

  private serial<T>(write: () => Promise<T>): Promise<T> {
    const run = this.writes.then(write);
    this.writes = run.catch(() => undefined);
    return run;
  }
}
