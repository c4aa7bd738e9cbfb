import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { AppError } from '../common/app-error';
import type { AuthUser } from '../common/auth-user';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { PushProviderId, PushRegistrationReply, PushSettingsReply, PushUnregisterReply } from '../contract/push';
import { isUniqueViolation } from '../database/db-errors';
import { TransactionRunner } from '../database/transaction-runner';
import { AccessChange, UserAccessEvents } from '../users/user-access-events';
import { disabledMessage } from '../users/user';
import { UsersService } from '../users/users.service';
import type { PushRegisterDto, PushSettingsDto, PushUnregisterDto } from './dto/push.dto';
import { previewOf } from './push-fanout';
import { PushDeliveriesRepository } from './push-deliveries.repository';
import { PushProviders } from './push-providers';
import { PushRegistrationsRepository } from './push-registrations.repository';
import { PushSettingsRepository } from './push-settings.repository';
import type { PushRegistrationEntity } from './push.entities';
import { hhmmOf, isTimeZone, minutesOf } from './quiet-hours';

/** The platforms each provider reaches. */
const PLATFORMS_OF: Record<PushProviderId, readonly string[]> = {
  apns: ['ios'],
  apns_voip: ['ios'],
  fcm: ['android', 'ios'],
  huawei: ['android', 'harmony'],
  xiaomi: ['android'],
};

export function toRegistrationReply(row: PushRegistrationEntity): PushRegistrationReply {
  return {
    device_id: row.deviceId,
    provider: row.provider as PushProviderId,
    platform: row.platform as PushRegistrationReply['platform'],
    registered_at: row.updatedAt,
  };
}

/**
 * The SDK's side of push: registering a device's token, unregistering it, and the user's preview
 * level and quiet hours. A user's registrations go when their tokens are revoked, when they are
 * disabled, and when they are erased.
 */
@Injectable()
export class PushService implements OnModuleInit {
  private readonly logger = new Logger('Push');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(Clock) private readonly clock: Clock,
    private readonly registrations: PushRegistrationsRepository,
    private readonly settings: PushSettingsRepository,
    private readonly deliveries: PushDeliveriesRepository,
    private readonly providers: PushProviders,
    private readonly users: UsersService,
    private readonly accessEvents: UserAccessEvents,
    private readonly tx: TransactionRunner,
  ) {}

  onModuleInit(): void {
    this.accessEvents.subscribe((userId, change) => {
      void this.dropRegistrations(userId, change).catch((error: unknown) =>
        this.logger.warn(
          `dropping user ${userId}'s push registrations failed (the dispatcher drops stale ones): ${(error as Error).message}`,
        ),
      );
    });
  }

  /**
   * A disabled user's registrations all go. A revocation drops those made before it only: the
   * SDK re-registers at once with its new token, and that registration must survive this delete.
   */
  private async dropRegistrations(userId: string, change: AccessChange): Promise<void> {
    if (change === 'disabled') {
      await this.registrations.deleteForUser(userId);
      return;
    }
    const state = (await this.users.findAuthStates([userId])).get(userId);
    if (!state || this.users.isDisabled(state)) await this.registrations.deleteForUser(userId);
    else await this.registrations.deleteStale(userId, state.tokenVersion);
  }

  async register(user: AuthUser, dto: PushRegisterDto): Promise<PushRegistrationReply> {
    if (!this.providers.forProvider(dto.provider))
      throw AppError.invalid('provider', `${dto.provider} is not configured on this service`);
    if (!PLATFORMS_OF[dto.provider].includes(dto.platform))
      throw AppError.invalid('platform', `${dto.platform} devices cannot use provider ${dto.provider}`);
    if ((dto.provider === 'apns' || dto.provider === 'apns_voip') && !/^[0-9a-fA-F]{64,200}$/.test(dto.token))
      throw AppError.invalid('token', 'must be the APNs device token in hexadecimal (64 or more digits)');
    // From the database, not the auth cache: a registration must carry the version that is current.
    const state = (await this.users.findAuthStates([user.internalId])).get(user.internalId);
    if (!state) throw new AppError(ErrorCode.USER_DISABLED, 'user is disabled');
    // A timed disable lapses at its end, before the sweep clears the flag: the SDK registers again then.
    if (this.users.isDisabled(state)) throw new AppError(ErrorCode.USER_DISABLED, disabledMessage(state));
    // A token revoked a moment ago still passes the guard on a cached state: it must not leave a
    // registration that looks like one made after the revocation.
    if (user.tokenVersion !== undefined && user.tokenVersion !== state.tokenVersion)
      throw new AppError(ErrorCode.TOKEN_INVALID, 'token invalid');
    const values = {
      userId: user.internalId,
      deviceId: dto.device_id,
      provider: dto.provider,
      token: dto.provider.startsWith('apns') ? dto.token.toLowerCase() : dto.token,
      platform: dto.platform,
      packageName: dto.package_name ?? null,
      appVersion: dto.app_version ?? null,
      locale: dto.locale ?? null,
      tokenVersion: state.tokenVersion,
    };
    for (let attempt = 1; ; attempt++) {
      try {
        const row = await this.tx.run((manager) => this.registrations.register(manager, values, this.clock.now()));
        return toRegistrationReply(row);
      } catch (error) {
        // Two registrations of one token (or one device) at once: the loser runs again and moves it.
        if (attempt < 3 && isUniqueViolation(error)) continue;
        throw error;
      }
    }
  }

  async unregister(user: AuthUser, dto: PushUnregisterDto): Promise<PushUnregisterReply> {
    const removed = await this.tx.run((manager) =>
      this.registrations.unregister(manager, user.internalId, dto.device_id, dto.provider ?? null),
    );
    return { removed };
  }

  async getSettings(user: AuthUser): Promise<PushSettingsReply> {
    const [row, devices] = await Promise.all([
      this.settings.find(user.internalId),
      this.registrations.forUser(user.internalId),
    ]);
    const preview = row?.preview ? previewOf(row, this.config.push.previewDefault) : null;
    return {
      preview,
      effective_preview: preview ?? this.config.push.previewDefault,
      quiet_hours:
        row && row.quietStart !== null && row.quietEnd !== null && row.timezone
          ? { start: hhmmOf(row.quietStart), end: hhmmOf(row.quietEnd), timezone: row.timezone }
          : null,
      devices: devices.map(toRegistrationReply),
    };
  }

  async setSettings(user: AuthUser, dto: PushSettingsDto): Promise<PushSettingsReply> {
    const quiet = dto.quiet_hours;
    if (quiet && !isTimeZone(quiet.timezone))
      throw AppError.invalid('quiet_hours.timezone', 'must be an IANA time zone such as "Asia/Shanghai"');
    await this.settings.save({
      userId: user.internalId,
      preview: dto.preview,
      quietStart: quiet ? minutesOf(quiet.start) : null,
      quietEnd: quiet ? minutesOf(quiet.end) : null,
      timezone: quiet ? quiet.timezone : null,
      updatedAt: this.clock.now(),
    });
    return this.getSettings(user);
  }

  /** Erasure: the user's registrations, settings and notification records. */
  async eraseUser(userId: string): Promise<number> {
    const removed = await this.registrations.deleteForUser(userId);
    await this.settings.deleteForUser(userId);
    await this.deliveries.deleteForUser(userId);
    return removed;
  }
}
