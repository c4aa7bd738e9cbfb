import { clientErrorGroupKey } from './client-error-group-key';
import { DAY_MS, HOUR_MS, planRollup, RollupSubmission } from './client-error-rollup';

const T0 = Date.UTC(2026, 10, 27, 10, 0, 0);

let nextId = 1;
function submission(over: Partial<RollupSubmission> = {}): RollupSubmission {
  return {
    id: String(nextId++),
    at: T0,
    errorCode: 'net.timeout',
    platform: 'ios',
    buildId: '7.1.0',
    severity: 'normal',
    userId: '10',
    deviceId: 'phone',
    message: 'm',
    ...over,
  };
}

describe('planRollup (a batch of client error submissions, aggregated per group, identity and bucket)', () => {
  it('sums one group into one row with its highest severity, time extremes and distinct identities', () => {
    const key = clientErrorGroupKey('net.timeout', 'ios', '7.1.0');
    const plan = planRollup([
      submission({ severity: 'serious', at: T0 + 5, message: 'middle' }),
      submission({ userId: '11', deviceId: 'tablet', at: T0 + 9, message: 'latest' }),
      submission({ at: T0 + 1, message: 'earliest' }),
      submission({ userId: '11', deviceId: 'phone-2', at: T0 + 2 }),
    ]);
    expect(plan.groups).toEqual([
      {
        groupKey: key,
        errorCode: 'net.timeout',
        platform: 'ios',
        build: '7.1.0',
        severityRank: 2,
        occurrences: 4,
        firstSeenAt: T0 + 1,
        lastSeenAt: T0 + 9,
        lastMessage: 'latest',
      },
    ]);
    expect(plan.users).toEqual([
      { groupKey: key, id: '10', userId: '10', occurrences: 2 },
      { groupKey: key, id: '11', userId: '11', occurrences: 2 },
    ]);
    expect(plan.devices.map((d) => [d.id, d.userId, d.occurrences])).toEqual([
      ['phone', '10', 2],
      ['phone-2', '11', 1],
      ['tablet', '11', 1],
    ]);
    expect(plan.hours).toEqual([{ groupKey: key, bucketStart: T0, occurrences: 4 }]);
    expect(plan.days).toEqual([{ groupKey: key, bucketStart: T0 - (T0 % DAY_MS), occurrences: 4 }]);
  });

  it('splits groups by error code, platform and build, with a null and an empty build alike', () => {
    const plan = planRollup([
      submission({ buildId: null }),
      submission({ buildId: '' }),
      submission({ platform: 'android' }),
      submission({ errorCode: 'auth.expired' }),
    ]);
    expect(plan.groups.map((g) => [g.errorCode, g.platform, g.build, g.occurrences]).sort()).toEqual(
      [
        ['auth.expired', 'ios', '7.1.0', 1],
        ['net.timeout', 'android', '7.1.0', 1],
        ['net.timeout', 'ios', '', 2],
      ].sort(),
    );
    // Each list is in key order, the order its rows are locked in.
    for (const list of [plan.groups, plan.users, plan.devices, plan.hours])
      expect(list.map((row) => row.groupKey)).toEqual(list.map((row) => row.groupKey).sort());
  });

  it('counts each occurrence into the hour and the day it happened in', () => {
    const plan = planRollup([
      submission({ at: T0 + 10 }),
      submission({ at: T0 + HOUR_MS + 10 }),
      submission({ at: T0 + HOUR_MS + 20 }),
      submission({ at: T0 + DAY_MS }),
    ]);
    expect(plan.hours.map((h) => [h.bucketStart - T0, h.occurrences])).toEqual([
      [0, 1],
      [HOUR_MS, 2],
      [DAY_MS, 1],
    ]);
    const day = T0 - (T0 % DAY_MS);
    expect(plan.days.map((d) => [d.bucketStart, d.occurrences])).toEqual([
      [day, 3],
      [day + DAY_MS, 1],
    ]);
  });

  it('takes the message of the latest occurrence, the later submission among equal times, whatever the input order', () => {
    const first = submission({ at: T0 + 7, message: 'accepted first' });
    const second = submission({ at: T0 + 7, message: 'accepted second' });
    const older = submission({ at: T0 + 3, message: 'older' });
    expect(planRollup([second, older, first]).groups[0].lastMessage).toBe('accepted second');
    expect(planRollup([first, second]).groups[0].lastMessage).toBe('accepted second');
  });

  it('names a device by the first user that reported it in the batch', () => {
    const accepted1 = submission({ userId: '20', deviceId: 'shared' });
    const accepted2 = submission({ userId: '21', deviceId: 'shared' });
    // Ids order acceptance, not the order of the list.
    expect(planRollup([accepted2, accepted1]).devices).toEqual([
      expect.objectContaining({ id: 'shared', userId: '20', occurrences: 2 }),
    ]);
  });

  it('plans nothing for an empty batch', () => {
    expect(planRollup([])).toEqual({ groups: [], users: [], devices: [], hours: [], days: [] });
  });
});
