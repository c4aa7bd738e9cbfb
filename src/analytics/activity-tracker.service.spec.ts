import { Clock } from '../common/clock';
import type { AppConfig } from '../config/app-config';
import type { UsersService } from '../users/users.service';
import { ActivityTracker, LAST_ACTIVE_EVERY_MS } from './activity-tracker.service';
import type { AnalyticsUserDaysRepository } from './analytics-user-days.repository';
import { DAY_MS } from './rollup';

class HeldClock extends Clock {
  constructor(public at: number) {
    super();
  }
  now(): number {
    return this.at;
  }
}

const D = Date.UTC(2026, 10, 20);

function tracker(start = D + 1000) {
  const clock = new HeldClock(start);
  const touched: Array<{ ids: readonly string[]; at: number }> = [];
  const recorded: Array<{ day: number; ids: readonly string[] }> = [];
  const users = {
    touchLastActive: jest.fn(async (ids: readonly string[], at: number) => void touched.push({ ids: [...ids], at })),
  };
  const userDays = {
    record: jest.fn(async (day: number, ids: readonly string[]) => void recorded.push({ day, ids: [...ids] })),
  };
  const service = new ActivityTracker(
    { analytics: { flushMs: 5000 } } as AppConfig,
    clock,
    users as unknown as UsersService,
    userDays as unknown as AnalyticsUserDaysRepository,
  );
  return { service, clock, touched, recorded, users, userDays };
}

describe('ActivityTracker', () => {
  it('writes a batch of users in one statement each, whatever the number of requests', async () => {
    const { service, touched, recorded } = tracker();
    for (let i = 0; i < 100; i++) service.seen(String(i % 3));
    await service.flush();
    expect(touched).toEqual([{ ids: ['0', '1', '2'], at: D + 1000 }]);
    expect(recorded).toEqual([{ day: D, ids: ['0', '1', '2'] }]);
    await service.flush();
    expect(touched).toHaveLength(1);
  });

  it('writes last_active_at at most once a minute per user, and the day row once per day', async () => {
    const { service, clock, touched, recorded } = tracker();
    service.seen('7');
    await service.flush();
    clock.at += LAST_ACTIVE_EVERY_MS - 1;
    service.seen('7');
    await service.flush();
    expect(touched).toHaveLength(1);
    clock.at += 1;
    service.seen('7');
    await service.flush();
    expect(touched.map((t) => t.at)).toEqual([D + 1000, D + 1000 + LAST_ACTIVE_EVERY_MS]);
    expect(recorded).toHaveLength(1);
    clock.at = D + DAY_MS + 5;
    service.seen('7');
    await service.flush();
    expect(recorded).toEqual([
      { day: D, ids: ['7'] },
      { day: D + DAY_MS, ids: ['7'] },
    ]);
  });

  it('queues a user again after a failed write of the day rows', async () => {
    const { service, recorded, userDays } = tracker();
    userDays.record.mockRejectedValueOnce(new Error('down'));
    service.seen('1');
    await service.flush();
    expect(recorded).toEqual([]);
    service.seen('1');
    await service.flush();
    expect(recorded).toEqual([{ day: D, ids: ['1'] }]);
  });
});
