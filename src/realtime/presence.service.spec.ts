import type { Clock } from '../common/clock';
import type { AppConfig } from '../config/app-config';
import type { Relationships } from '../friends/relationships.service';
import { MetricsService } from '../metrics/metrics.service';
import { UsersService } from '../users/users.service';
import { PresenceService } from './presence.service';
import type { RealtimeService } from './realtime.service';
import type { SocketSession } from './socket-session';

const TTL_MS = 1000;

describe('PresenceService sweep', () => {
  it('announces every user it found offline, also when announcing one of them fails', async () => {
    let now = 1_000_000;
    let failFor: string | null = null;
    const emitToRooms = jest.fn();
    const realtime = { hub: { users: () => [], sessionsOf: () => [] }, emitToRooms } as unknown as RealtimeService;
    const friends = {
      presenceAudience: jest.fn(async (userId: string) => {
        if (userId === failFor) throw new Error('database hiccup');
        return [`friend-of-${userId}`];
      }),
    } as unknown as Relationships;
    const users = {
      findByIds: async (ids: string[]) => ids.map((id) => ({ id, externalId: `ext-${id}` })),
    } as unknown as UsersService;
    const metrics = new MetricsService();
    const config = {
      realtime: { presenceTtlMs: TTL_MS },
      messaging: { redisUrl: null },
      operations: { redisTimeoutMs: 1000 },
    } as unknown as AppConfig;
    const clock = { now: () => now } as Clock;
    const presence = new PresenceService(realtime, friends, users, metrics, config, clock);
    for (const id of ['1', '2']) {
      const session = { user: { internalId: id, externalId: `ext-${id}` }, socket: { id: `c${id}` } };
      presence.connected(session as unknown as SocketSession);
    }
    await new Promise((resolve) => setImmediate(resolve));
    emitToRooms.mockClear();

    // Both connections stop being refreshed (their instance died); user 1's announcement fails.
    now += 10 * TTL_MS;
    failFor = '1';
    await (presence as unknown as { sweep(): Promise<void> }).sweep();

    const announced = emitToRooms.mock.calls.map(([rooms, envelope]) => ({
      rooms: rooms as string[],
      data: (envelope as { data: unknown }).data,
    }));
    expect(announced).toEqual([
      { rooms: ['u:friend-of-2'], data: expect.objectContaining({ user_id: 'ext-2', online: false }) },
    ]);
    const counted = (await metrics.backgroundItemFailures.get()).values;
    expect(counted).toEqual([expect.objectContaining({ labels: { pass: 'presence_sweep' }, value: 1 })]);
    await presence.onModuleDestroy();
  });
});
