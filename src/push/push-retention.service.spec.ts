import type { AppConfig } from '../config/app-config';
import { Clock } from '../common/clock';
import type { PushDeliveriesRepository } from './push-deliveries.repository';
import type { PushDispatchRepository } from './push-dispatch.repository';
import { MetricsService } from '../metrics/metrics.service';
import type { PushProviders } from './push-providers';
import { PushRetentionService } from './push-retention.service';

const NOW = 1_800_000_000_000;

class FixedClock extends Clock {
  now(): number {
    return NOW;
  }
}
const RETRY_MS = 600_000;

function service(
  adapters: number,
  leaseUntil: number | null,
  deliveries = {} as PushDeliveriesRepository,
  metrics = new MetricsService(),
): PushRetentionService {
  const config = { push: { retryMs: RETRY_MS, deliveriesRetentionDays: 7 } } as unknown as AppConfig;
  const dispatch = {
    find: async () =>
      leaseUntil === null ? null : { id: 1, cursorPosition: '42', leaseOwner: 'x', leaseUntil, updatedAt: 0 },
  } as unknown as PushDispatchRepository;
  return new PushRetentionService(
    config,
    new FixedClock(),
    deliveries,
    dispatch,
    { adapters: Array.from({ length: adapters }) } as unknown as PushProviders,
    metrics,
  );
}

describe('PushRetentionService.outboxFloor', () => {
  it('holds the outbox at the dispatcher’s cursor while a dispatcher holds, or recently held, the lease', async () => {
    expect(await service(1, NOW + 5_000).outboxFloor()).toBe('42');
    expect(await service(1, NOW - RETRY_MS + 1).outboxFloor()).toBe('42');
  });

  it('holds nothing back without a provider, or when no dispatcher has run for longer than the retry window', async () => {
    expect(await service(0, NOW + 5_000).outboxFloor()).toBeNull();
    expect(await service(1, NOW - RETRY_MS - 1).outboxFloor()).toBeNull();
    expect(await service(1, null).outboxFloor()).toBeNull();
  });
});

describe('PushRetentionService.pruneDeliveriesBefore', () => {
  it('counts what it gives up as expired, by provider, like a sender would', async () => {
    const metrics = new MetricsService();
    const deliveries = {
      expireAbandoned: async () =>
        new Map([
          ['huawei', 2],
          ['fcm', 1],
        ]),
      prune: async () => 5,
    } as unknown as PushDeliveriesRepository;
    expect(await service(1, null, deliveries, metrics).pruneDeliveriesBefore(NOW, 100)).toBe(5);
    const values = (await metrics.pushNotifications.get()).values;
    const of = (provider: string) =>
      values.find((v) => v.labels.provider === provider && v.labels.outcome === 'expired')?.value;
    expect({ huawei: of('huawei'), fcm: of('fcm') }).toEqual({ huawei: 2, fcm: 1 });
  });
});
