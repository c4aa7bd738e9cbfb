import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { MetricsService } from '../metrics/metrics.service';
import type { PushProviderId } from '../contract/push';
import { ApnsProvider } from './providers/apns/apns-provider';
import { FcmProvider } from './providers/fcm/fcm-provider';
import { HuaweiProvider } from './providers/huawei/huawei-provider';
import type { PushProvider } from './providers/push-provider';
import { XiaomiProvider } from './providers/xiaomi/xiaomi-provider';

/** What the console shows of a provider since this instance started. */
export interface ProviderHealth {
  inFlight: number;
  lastSuccessAt: number | null;
  lastFailureAt: number | null;
  lastFailure: string | null;
}

/** The adapters of the configured providers (one each per instance) and their health. */
@Injectable()
export class PushProviders implements OnApplicationShutdown {
  private readonly logger = new Logger('Push');
  readonly adapters: PushProvider[] = [];
  private readonly health = new Map<string, ProviderHealth>();
  /** The adapter names every build knows, configured or not (the console lists them all). */
  static readonly KNOWN: ReadonlyArray<{ name: string; serves: PushProviderId[] }> = [
    { name: 'apns', serves: ['apns', 'apns_voip'] },
    { name: 'fcm', serves: ['fcm'] },
    { name: 'huawei', serves: ['huawei'] },
    { name: 'xiaomi', serves: ['xiaomi'] },
  ];

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly metrics: MetricsService,
  ) {
    const { push } = config;
    // Sockets for every send in flight and an access-token request: none waits for a connection.
    const options = { timeoutMs: push.timeoutMs, maxSockets: push.concurrency + 2 };
    if (push.apns) this.adapters.push(new ApnsProvider(push.apns, options));
    if (push.fcm) this.adapters.push(new FcmProvider(push.fcm, options));
    if (push.huawei) this.adapters.push(new HuaweiProvider(push.huawei, options));
    if (push.xiaomi) this.adapters.push(new XiaomiProvider(push.xiaomi, options));
    for (const adapter of this.adapters) {
      this.health.set(adapter.name, { inFlight: 0, lastSuccessAt: null, lastFailureAt: null, lastFailure: null });
      this.metrics.pushInFlight.set({ provider: adapter.name }, 0);
    }
    if (this.adapters.length > 0)
      this.logger.log(`push providers: ${this.adapters.map((adapter) => adapter.name).join(', ')}`);
  }

  /** The adapter serving a registration's provider, or null when that provider is not configured. */
  forProvider(provider: string): PushProvider | null {
    return this.adapters.find((adapter) => (adapter.serves as readonly string[]).includes(provider)) ?? null;
  }

  /** The registration providers this instance can send to. */
  configured(): PushProviderId[] {
    return this.adapters.flatMap((adapter) => [...adapter.serves]);
  }

  healthOf(name: string): ProviderHealth | null {
    return this.health.get(name) ?? null;
  }

  started(name: string): void {
    const health = this.health.get(name);
    if (!health) return;
    health.inFlight++;
    this.metrics.pushInFlight.set({ provider: name }, health.inFlight);
  }

  finished(name: string, at: number, failure: string | null): void {
    const health = this.health.get(name);
    if (!health) return;
    health.inFlight--;
    this.metrics.pushInFlight.set({ provider: name }, health.inFlight);
    if (failure === null) health.lastSuccessAt = at;
    else {
      health.lastFailureAt = at;
      health.lastFailure = failure;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.adapters.map((adapter) => adapter.close().catch(() => undefined)));
  }
}
