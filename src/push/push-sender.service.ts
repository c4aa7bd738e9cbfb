import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Clock } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import { DeadTokenGuard } from './dead-token-guard';
import type { PushNotification, PushProvider, PushProviderName, PushResult } from './providers/push-provider';
import { ClaimedNotification, PushDeliveriesRepository } from './push-deliveries.repository';
import { PushProviders } from './push-providers';
import { PushRegistrationsRepository } from './push-registrations.repository';
import { ProviderWorker, platformOf, reasonOf, safeSend } from './provider-worker';

/**
 * Dead-token answers in a row, with no delivery between, after which registrations are kept
 * (DeadTokenGuard): far more than a day's uninstalls show in one run, far fewer than an app's users.
 */
const DEAD_TOKEN_RUN = 200;

/**
 * Sends the queued notifications: one worker per configured provider on every instance, each
 * with its own PUSH_CONCURRENCY slots, so a slow or failing provider fills only its own. A
 * worker claims due notifications for a lease (a conditional UPDATE), so two instances never
 * send the same one at once; a crash after the provider accepted and before the record lets
 * the lease run out and the notification be sent again, with the same collapse key (the event
 * ID), and the device shows it once.
 */
@Injectable()
export class PushSender implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Push');
  private readonly owner = randomUUID();
  private readonly workers: ProviderWorker[] = [];
  private readonly guards = new Map<string, DeadTokenGuard>();

  constructor(
    @Inject(APP_CONFIG) private readonly appConfig: AppConfig,
    @Inject(Clock) private readonly clock: Clock,
    private readonly providers: PushProviders,
    private readonly deliveries: PushDeliveriesRepository,
    private readonly registrations: PushRegistrationsRepository,
    private readonly metrics: MetricsService,
  ) {}

  onApplicationBootstrap(): void {
    // PUSH_DISPATCH=false: another instance sends (the console's test send still works here).
    if (!this.appConfig.push.dispatch) return;
    for (const adapter of this.providers.adapters) {
      this.guards.set(adapter.name, new DeadTokenGuard(DEAD_TOKEN_RUN));
      const worker = new ProviderWorker(adapter, this.owner, this.appConfig.push, {
        now: () => this.clock.now(),
        deliveries: this.deliveries,
        outcome: (claimed, result, latencyMs) => this.recordAttempt(adapter, claimed, result, latencyMs),
        finished: (provider, status, count = 1) =>
          this.metrics.pushNotifications.inc({ provider, outcome: status }, count),
        deadToken: (claimed) => this.removeDead(adapter, claimed),
        delivered: () => this.guards.get(adapter.name)?.delivered(),
        logger: this.logger,
        providers: this.providers,
      });
      this.workers.push(worker);
    }
  }

  /** Queued work is there (for these registration providers, or any): their idle workers look now. */
  wake(providers?: ReadonlySet<string>): void {
    for (const worker of this.workers) if (!providers || worker.serves(providers)) worker.wake();
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const worker of this.workers) worker.stop();
    await Promise.all(this.workers.map((worker) => worker.done));
  }

  /** Sends one notification now, outside the queue (the console's test send). */
  async sendNow(
    provider: PushProviderName,
    device: { token: string; packageName: string | null; platform: string },
    notification: PushNotification,
  ): Promise<PushResult | null> {
    const adapter = this.providers.forProvider(provider);
    if (!adapter) return null;
    this.providers.started(adapter.name);
    const started = Date.now();
    const result = await safeSend(
      adapter,
      { provider, token: device.token, packageName: device.packageName, platform: platformOf(device.platform) },
      notification,
    );
    this.providers.finished(adapter.name, this.clock.now(), result.outcome === 'sent' ? null : reasonOf(result));
    this.metrics.pushAttempts.inc({ provider: adapter.name, result: result.outcome });
    this.metrics.pushSendSeconds.observe({ provider: adapter.name }, (Date.now() - started) / 1000);
    return result;
  }

  private recordAttempt(
    adapter: PushProvider,
    claimed: ClaimedNotification,
    result: PushResult,
    latencyMs: number,
  ): void {
    this.metrics.pushAttempts.inc({ provider: adapter.name, result: result.outcome });
    this.metrics.pushSendSeconds.observe({ provider: adapter.name }, latencyMs / 1000);
    if (result.outcome === 'sent')
      this.metrics.pushDelaySeconds.observe(
        { provider: adapter.name },
        Math.max(0, this.clock.now() - claimed.createdAt) / 1000,
      );
  }

  /** Removes a registration the provider called dead, unless the guard has tripped. */
  private async removeDead(adapter: PushProvider, claimed: ClaimedNotification): Promise<void> {
    const registration = claimed.registration;
    if (!registration) return;
    const guard = this.guards.get(adapter.name);
    if (guard && !guard.dead()) {
      if (guard.run === DEAD_TOKEN_RUN + 1)
        this.logger.error(
          `push ${adapter.name}: ${guard.run} dead-token answers in a row and no delivery: registrations are kept until one is delivered; check the provider's credentials and environment (APNS_ENVIRONMENT, APNS_TOPIC, the Firebase project)`,
        );
      return;
    }
    const removed = await this.registrations.deleteDead(
      claimed.registrationId,
      registration.tokenHash,
      registration.updatedAt,
    );
    if (removed > 0) this.metrics.pushDeadTokens.inc({ provider: adapter.name });
  }

  /** Whether a provider's dead-token guard keeps registrations now (the console shows it). */
  keepingDeadTokens(name: string): boolean {
    return this.guards.get(name)?.tripped ?? false;
  }
}
