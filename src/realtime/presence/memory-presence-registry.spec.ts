import { MemoryPresenceRegistry, MemoryPresenceStore } from './memory-presence-registry';
import { presenceRegistryContract } from './presence-registry.contract';

describe('MemoryPresenceRegistry', () => {
  // One store stands for the shared state; each registry on it for one instance.
  presenceRegistryContract(async (ttlMs) => {
    const store = new MemoryPresenceStore();
    return { instance: async () => new MemoryPresenceRegistry({ ttlMs, store }) };
  });

  it('forgets a last-seen time after the retention', async () => {
    const registry = new MemoryPresenceRegistry({ ttlMs: 1000, lastSeenRetentionMs: 10_000 });
    await registry.connected('1', 'c', 0);
    await registry.disconnected('1', 'c', 500);
    expect((await registry.stateOf(['1'], 10_499)).get('1')).toEqual({ online: false, lastSeenAt: 500 });
    await registry.sweep(10_500);
    expect((await registry.stateOf(['1'], 10_500)).get('1')).toEqual({ online: false, lastSeenAt: null });
  });
});
