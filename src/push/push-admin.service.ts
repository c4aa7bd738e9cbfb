import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { AdminActor } from '../admin/admin-actor';
import { AdminAuditService } from '../admin/admin-audit.service';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { PushProviderId, PushStatusReply, PushTestDeviceReply, PushTestReply } from '../contract/push';
import { TransactionRunner } from '../database/transaction-runner';
import { EventStream } from '../outbox/event-stream.service';
import { UsersService } from '../users/users.service';
import type { PushProviderName } from './providers/push-provider';
import { composeNotification } from './push-composer';
import type { PushTestDto } from './push-admin.dto';
import { PushDeliveriesRepository } from './push-deliveries.repository';
import { PushDispatchRepository } from './push-dispatch.repository';
import { PushProviders } from './push-providers';
import { PushRegistrationsRepository } from './push-registrations.repository';
import { PushSender } from './push-sender.service';

/** The console's push page: each provider's state, and a test notification to a user's devices. */
@Injectable()
export class PushAdminService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(Clock) private readonly clock: Clock,
    private readonly providers: PushProviders,
    private readonly registrations: PushRegistrationsRepository,
    private readonly deliveries: PushDeliveriesRepository,
    private readonly dispatch: PushDispatchRepository,
    private readonly stream: EventStream,
    private readonly sender: PushSender,
    private readonly users: UsersService,
    private readonly audit: AdminAuditService,
    private readonly tx: TransactionRunner,
  ) {}

  async status(): Promise<PushStatusReply> {
    const [pending, registered, state, head] = await Promise.all([
      this.deliveries.pendingByProvider(),
      this.registrations.countByProvider(),
      this.dispatch.find(),
      this.stream.head(),
    ]);
    const sum = (counts: Map<string, number>, kinds: readonly string[]): number =>
      kinds.reduce((total, kind) => total + (counts.get(kind) ?? 0), 0);
    // Without a provider nothing is dispatched, and nothing is behind.
    const lag = state && this.providers.adapters.length > 0 ? BigInt(head) - BigInt(state.cursorPosition) : 0n;
    return {
      providers: PushProviders.KNOWN.map(({ name, serves }) => {
        const health = this.providers.healthOf(name);
        return {
          provider: name,
          serves,
          configured: health !== null,
          concurrency: this.config.push.concurrency,
          in_flight: health?.inFlight ?? 0,
          pending: sum(pending, serves),
          last_success_at: health?.lastSuccessAt ?? null,
          last_failure_at: health?.lastFailureAt ?? null,
          last_failure: health?.lastFailure ?? null,
          registrations: sum(registered, serves),
          keeping_dead_tokens: this.sender.keepingDeadTokens(name),
        };
      }),
      preview_default: this.config.push.previewDefault,
      lag_events: lag > 0n ? Number(lag) : 0,
    };
  }

  /**
   * Sends a test notification to every registered device of the user now, past presence, mute
   * and quiet hours, and answers each provider's verdict; a dead token is removed as in a
   * dispatch. Audited: it reaches a user's phone.
   */
  async test(actor: AdminActor, dto: PushTestDto): Promise<PushTestReply> {
    const [user] = await this.users.findByExternalIds([dto.user_id]);
    if (!user) throw new AppError(ErrorCode.PROFILE_INACCESSIBLE, 'user_id: no such user');
    const devices = await this.registrations.forUser(user.id);
    const eventId = randomUUID();
    const now = this.clock.now();
    const results: PushTestDeviceReply[] = [];
    for (const device of devices) {
      const notification = composeNotification(
        { kind: 'test', eventId, text: dto.text ?? 'Test notification' },
        { preview: 'full', badge: 0, locale: device.locale },
        { createdAt: now, messageTtlSeconds: 300, callTtlSeconds: 60 },
      );
      const result = await this.sender.sendNow(device.provider as PushProviderName, device, notification);
      if (result?.outcome === 'dead_token')
        await this.registrations.deleteDead(device.id, device.tokenHash, device.updatedAt);
      results.push({
        device_id: device.deviceId,
        provider: device.provider as PushProviderId,
        outcome: result ? result.outcome : 'not_configured',
        status: result?.status ?? null,
        reason: result && result.outcome !== 'sent' ? result.reason : null,
      });
    }
    await this.tx.run((manager) =>
      this.audit.record(manager, actor, {
        action: 'push.test',
        targetType: 'user',
        targetId: user.id,
        before: null,
        after: { devices: results.map(({ provider, outcome }) => ({ provider, outcome })) },
      }),
    );
    return { devices: results };
  }
}
