import type { HostAppRetentionService } from '../host-app/host-app-retention.service';
import { Clock } from '../common/clock';
import type { ClientErrorRecordsService } from '../client-errors/client-error-records.service';
import type { AppConfig } from '../config/app-config';
import type { RetentionConfig } from '../config/retention-config';
import type { OutboxRetention } from '../outbox/outbox-retention.service';
import type { RtcCallbackService } from '../rtc-callback/rtc-callback.service';
import { MAX_BATCHES_PER_RUN, RetentionService, jitteredDelayMs } from './retention.service';
import type { ServerRequestsService } from '../server-api/server-requests.service';
import type { WebhookRetentionService } from '../webhooks/webhook-retention.service';
import type { PushRetentionService } from '../push/push-retention.service';
import type { AnalyticsRetentionService } from '../analytics/analytics-retention.service';

const DAY = 24 * 60 * 60 * 1000;
const NOW = 1_800_000_000_000;

class FixedClock extends Clock {
  now(): number {
    return NOW;
  }
}

/** A table of `rows` old rows that deletes up to `size` per call, recording each cutoff. */
function fakeTable(rows: number) {
  const calls: Array<{ cutoff: number; size: number }> = [];
  let left = rows;
  return {
    calls,
    prune: jest.fn(async (cutoff: number, size: number) => {
      calls.push({ cutoff, size });
      const n = Math.min(left, size);
      left -= n;
      return n;
    }),
  };
}

function service(
  retention: Partial<RetentionConfig>,
  tables = { errors: fakeTable(0), submissions: fakeTable(0), events: fakeTable(0) },
  outboxTable = fakeTable(0),
) {
  const settings: RetentionConfig = {
    clientErrorsDays: 30,
    roomEventsDays: 30,
    idempotencyDays: 7,
    intervalSeconds: 600,
    batchSize: 500,
    ...retention,
  };
  const clientErrors = {
    pruneRecordsBefore: tables.errors.prune,
    pruneSubmissionsBefore: tables.submissions.prune,
    pruneGroupsBefore: jest.fn(async () => 0),
    pruneGroupBucketsBefore: jest.fn(async () => 0),
  } as unknown as ClientErrorRecordsService;
  const roomEvents = { pruneEventsBefore: tables.events.prune } as unknown as RtcCallbackService;
  const outbox = { prune: outboxTable.prune } as unknown as OutboxRetention;
  const config = {
    retention: settings,
    realtime: { backlogSeconds: 3600 },
    hostApp: { sessionIdleSeconds: 600, sessionAbsoluteSeconds: 3600, sms: { phoneIntervalSeconds: 60 } },
  } as AppConfig;
  const hostApp = {
    pruneSessions: jest.fn(async () => 0),
    pruneSmsCodes: jest.fn(async () => 0),
    pruneSmsSendsBefore: jest.fn(async () => 0),
  };
  return {
    tables,
    outboxTable,
    hostApp,
    retention: new RetentionService(
      config,
      new FixedClock(),
      clientErrors,
      roomEvents,
      outbox,
      hostApp as unknown as HostAppRetentionService,
      { pruneBefore: jest.fn(async () => 0) } as unknown as ServerRequestsService,
      {
        deliveriesKeepMs: 0,
        pruneDeliveriesBefore: jest.fn(async () => 0),
        outboxFloor: jest.fn(async () => null),
      } as unknown as WebhookRetentionService,
      {
        deliveriesKeepMs: 0,
        pruneDeliveriesBefore: jest.fn(async () => 0),
        outboxFloor: jest.fn(async () => null),
      } as unknown as PushRetentionService,
      { userDaysKeepMs: 0, pruneUserDaysBefore: jest.fn(async () => 0) } as unknown as AnalyticsRetentionService,
    ),
  };
}

describe('RetentionService', () => {
  afterEach(() => jest.useRealTimers());

  it('prunes each table by its own cutoff in batches until a batch finds nothing', async () => {
    const { retention, tables, hostApp } = service(
      { batchSize: 2 },
      { errors: fakeTable(5), submissions: fakeTable(1), events: fakeTable(0) },
    );
    expect(await retention.runOnce()).toEqual({
      deleted: {
        client_errors: 5,
        client_error_groups: 0,
        client_error_group_hours: 0,
        client_error_group_days: 0,
        client_error_submissions: 1,
        rtc_room_events: 0,
        outbox_events: 0,
        host_sessions: 0,
        host_sms_codes: 0,
        host_sms_phone_sends: 0,
        server_requests: 0,
      },
      failed: [],
    });
    expect(tables.errors.calls).toEqual([2, 2, 2, 2].map(() => ({ cutoff: NOW - 30 * DAY, size: 2 })));
    expect(tables.submissions.calls.map((c) => c.cutoff)).toEqual([NOW - 7 * DAY, NOW - 7 * DAY]);
    expect(tables.events.calls).toEqual([{ cutoff: NOW - 30 * DAY, size: 2 }]);
    // A number's last send holds nothing back once SMS_PHONE_INTERVAL_SECONDS (60 here) has passed.
    expect(hostApp.pruneSmsSendsBefore).toHaveBeenCalledWith(NOW - 60_000, 2);
  });

  it('keeps a table for ever when its days are 0, and bounds one run to a number of batches', async () => {
    const { retention, tables } = service(
      { clientErrorsDays: 0, batchSize: 1 },
      { errors: fakeTable(5), submissions: fakeTable(10 * MAX_BATCHES_PER_RUN), events: fakeTable(0) },
    );
    const run = await retention.runOnce();
    expect(tables.errors.prune).not.toHaveBeenCalled();
    expect(run.deleted).toEqual({
      client_error_group_hours: 0,
      client_error_group_days: 0,
      client_error_submissions: MAX_BATCHES_PER_RUN,
      rtc_room_events: 0,
      outbox_events: 0,
      host_sessions: 0,
      host_sms_codes: 0,
      host_sms_phone_sends: 0,
      server_requests: 0,
    });
  });

  it('prunes delivered outbox events older than the resume backlog (REALTIME_BACKLOG_SECONDS)', async () => {
    const { retention, outboxTable } = service({ batchSize: 3 }, undefined, fakeTable(4));
    expect((await retention.runOnce()).deleted.outbox_events).toBe(4);
    expect(outboxTable.calls).toEqual([0, 1, 2].map(() => ({ cutoff: NOW - 3600 * 1000, size: 3 })));
  });

  it('reports a failing table and still prunes the others', async () => {
    const { retention, tables } = service({});
    tables.errors.prune.mockRejectedValueOnce(new Error('Deadlock found when trying to get lock'));
    const run = await retention.runOnce();
    expect(run.failed).toEqual(['client_errors']);
    expect(tables.submissions.prune).toHaveBeenCalled();
    expect(tables.events.prune).toHaveBeenCalled();
  });

  it('joins a run already in progress instead of starting a second one', async () => {
    const { retention, tables } = service({});
    const [a, b] = [retention.runOnce(), retention.runOnce()];
    expect(a).toBe(b);
    await a;
    expect(tables.errors.prune).toHaveBeenCalledTimes(1);
  });

  it('jitters the interval by ±25 %', () => {
    expect(jitteredDelayMs(600, () => 0)).toBe(450_000);
    expect(jitteredDelayMs(600, () => 0.999999)).toBeLessThanOrEqual(750_000);
    expect(jitteredDelayMs(600, () => 0.5)).toBe(600_000);
  });

  it("runs on an unref'd timer from bootstrap, again after each run, and stops on shutdown", async () => {
    jest.useFakeTimers();
    const random = jest.spyOn(Math, 'random').mockReturnValue(0.5);
    try {
      const { retention, tables } = service({ intervalSeconds: 10 });
      retention.onApplicationBootstrap();
      expect(jest.getTimerCount()).toBe(1);
      await jest.advanceTimersByTimeAsync(9_999);
      expect(tables.errors.prune).not.toHaveBeenCalled();
      await jest.advanceTimersByTimeAsync(1);
      expect(tables.errors.prune).toHaveBeenCalledTimes(1);
      expect(jest.getTimerCount()).toBe(1);
      await jest.advanceTimersByTimeAsync(10_000);
      expect(tables.errors.prune).toHaveBeenCalledTimes(2);
      await retention.beforeApplicationShutdown();
      expect(jest.getTimerCount()).toBe(0);
      await jest.advanceTimersByTimeAsync(60_000);
      expect(tables.errors.prune).toHaveBeenCalledTimes(2);
    } finally {
      random.mockRestore();
    }
  });

  it('still runs for the outbox when every other table is kept for ever (delivered events always expire)', async () => {
    jest.useFakeTimers();
    const { retention, tables, outboxTable } = service(
      { clientErrorsDays: 0, roomEventsDays: 0, idempotencyDays: 0 },
      undefined,
      fakeTable(1),
    );
    retention.onApplicationBootstrap();
    expect(jest.getTimerCount()).toBe(1);
    jest.useRealTimers();
    expect((await retention.runOnce()).deleted).toEqual({
      // The trend buckets only serve the console's 24 h and 30 d charts: they always expire.
      client_error_group_hours: 0,
      client_error_group_days: 0,
      outbox_events: 1,
      host_sessions: 0,
      host_sms_codes: 0,
      host_sms_phone_sends: 0,
    });
    expect(tables.errors.prune).not.toHaveBeenCalled();
    expect(outboxTable.prune).toHaveBeenCalled();
    await retention.beforeApplicationShutdown();
  });

  it('unrefs its timer so that it never keeps the process alive', () => {
    const unref = jest.fn();
    const spy = jest.spyOn(global, 'setTimeout').mockReturnValue({ unref } as unknown as NodeJS.Timeout);
    try {
      service({}).retention.onApplicationBootstrap();
      expect(unref).toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });
});
