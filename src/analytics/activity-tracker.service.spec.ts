import { Clock } from '../common/clock';
import type { AppConfig } from '../config/app-config';
import type { UsersService } from '../users/users.service';
import type { MetricsService } from '../metrics/metrics.service';
import { ActivityTracker, LAST_ACTIVE_EVERY_MS, MAX_PENDING, WRITE_CHUNK } from './activity-tracker.service';
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
  const dropped = { inc: jest.fn() };
  const service = new ActivityTracker(
    { analytics: { flushMs: 5000 } } as AppConfig,
    clock,
    users as unknown as UsersService,
    userDays as unknown as AnalyticsUserDaysRepository,
    { analyticsActivityDropped: dropped } as unknown as MetricsService,
  );
  return { service, clock, touched, recorded, users, userDays, dropped };
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

  it('runs one write and queues at most one more while the database is slow, whatever the request rate', async () => {
    const { service, touched, users } = tracker();
    let release!: () => void;
    const stalled = new Promise<void>((resolve) => (release = resolve));
    users.touchLastActive.mockImplementationOnce(async (ids: readonly string[], at: number) => {
      touched.push({ ids: [...ids], at });
      await stalled;
    });
    service.seen('first');
    void service.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(touched).toHaveLength(1);
    // 20,000 users, each its own request, arrive while the first write waits: past the 5,000 that start a flush.
    for (let i = 0; i < 20_000; i++) service.seen(`u${i}`);
    const flushes = [service.flush(), service.flush(), service.flush()];
    release();
    await Promise.all(flushes);
    await service.flush();
    // The stalled write, then one write of all 20,000 in statements of 500.
    expect(touched.slice(1).map((t) => t.ids.length)).toEqual(Array.from({ length: 40 }, () => WRITE_CHUNK));
    expect(new Set(touched.slice(1).flatMap((t) => t.ids)).size).toBe(20_000);
  });

  it('drops entries beyond the cap while the database is slow, counted, and queues those users at their next request', async () => {
    const { service, touched, recorded, users, dropped } = tracker();
    let release!: () => void;
    const stalled = new Promise<void>((resolve) => (release = resolve));
    users.touchLastActive.mockImplementationOnce(async () => {
      await stalled;
    });
    service.seen('first');
    void service.flush();
    await new Promise((resolve) => setImmediate(resolve));
    // Each user is two entries (last_active_at and the day's row).
    const users2 = MAX_PENDING / 2 + 10;
    for (let i = 0; i < users2; i++) service.seen(`u${i}`);
    expect(dropped.inc.mock.calls.length).toBe(20);
    release();
    await service.flush();
    await service.flush();
    const written = new Set(touched.flatMap((t) => t.ids));
    expect(written.size).toBe(MAX_PENDING / 2);
    expect(written.has(`u${users2 - 1}`)).toBe(false);
    // Nothing marked them as queued: their next request does.
    service.seen(`u${users2 - 1}`);
    await service.flush();
    expect(touched.at(-1)!.ids).toEqual([`u${users2 - 1}`]);
    expect(recorded.at(-1)!.ids).toEqual([`u${users2 - 1}`]);
  });

  it('forgets an erased user: nothing of theirs pending is written, and their day rows are deleted', async () => {
    const { service, touched, recorded, userDays } = tracker();
    (userDays as unknown as { deleteOfUser: jest.Mock }).deleteOfUser = jest.fn(async () => 3);
    service.seen('gone');
    service.seen('kept');
    expect(await service.eraseUser('gone')).toBe(3);
    await service.flush();
    expect(touched.map((t) => t.ids)).toEqual([['kept']]);
    expect(recorded.map((r) => r.ids)).toEqual([['kept']]);
  });
});
