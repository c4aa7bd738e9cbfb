import type { AppConfig } from '../config/app-config';
import { Clock } from '../common/clock';
import type { PushDeliveriesRepository } from './push-deliveries.repository';
import type { PushDispatchRepository } from './push-dispatch.repository';
import type { PushProviders } from './push-providers';
import { PushRetentionService } from './push-retention.service';

const NOW = 1_800_000_000_000;

class FixedClock extends Clock {
  now(): number {
    return NOW;
  }
}
const RETRY_MS = 600_000;

function service(adapters: number, leaseUntil: number | null): PushRetentionService {
  const config = { push: { retryMs: RETRY_MS, deliveriesRetentionDays: 7 } } as unknown as AppConfig;
  const dispatch = {
    find: async () =>
      leaseUntil === null ? null : { id: 1, cursorPosition: '42', leaseOwner: 'x', leaseUntil, updatedAt: 0 },
  } as unknown as PushDispatchRepository;
  return new PushRetentionService(config, new FixedClock(), {} as PushDeliveriesRepository, dispatch, {
    adapters: Array.from({ length: adapters }),
  } as unknown as PushProviders);
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
