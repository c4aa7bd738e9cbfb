import {
  DAY_MS,
  HOUR_MS,
  bucketStarts,
  callIncrements,
  dayOf,
  hourOf,
  mergeIncrements,
  messageIncrements,
  requestOutcome,
  settledPrefix,
} from './rollup';

const D = Date.UTC(2026, 10, 20);

describe('analytics rollup arithmetic', () => {
  it('buckets a time into its UTC day and hour', () => {
    expect(dayOf(D)).toBe(D);
    expect(dayOf(D + DAY_MS - 1)).toBe(D);
    expect(dayOf(D + DAY_MS)).toBe(D + DAY_MS);
    expect(hourOf(D + 3 * HOUR_MS + 59_999)).toBe(D + 3 * HOUR_MS);
  });

  it('counts messages per day and type, across a midnight', () => {
    const rows = [
      { id: '1', type: 'text', createdAt: D + 10 },
      { id: '2', type: 'image', createdAt: D + 20 },
      { id: '3', type: 'text', createdAt: D + DAY_MS - 1 },
      { id: '4', type: 'text', createdAt: D + DAY_MS },
    ];
    expect(messageIncrements(rows)).toEqual([
      { bucket: D, metric: 'messages', dimension: 'text', value: 2 },
      { bucket: D, metric: 'messages', dimension: 'image', value: 1 },
      { bucket: D + DAY_MS, metric: 'messages', dimension: 'text', value: 1 },
    ]);
  });

  it('counts calls by the day they ended and their connected seconds', () => {
    const rows = [
      { id: '1', media: 'audio', acceptedAt: D + 1_000, endedAt: D + 61_000 },
      { id: '2', media: 'audio', acceptedAt: null, endedAt: D + 5_000 },
      { id: '3', media: 'video', acceptedAt: D + DAY_MS - 30_000, endedAt: D + DAY_MS + 90_000 },
    ];
    expect(callIncrements(rows)).toEqual([
      { bucket: D, metric: 'calls', dimension: 'audio', value: 2 },
      { bucket: D, metric: 'call_seconds', dimension: 'audio', value: 60 },
      { bucket: D + DAY_MS, metric: 'calls', dimension: 'video', value: 1 },
      { bucket: D + DAY_MS, metric: 'call_seconds', dimension: 'video', value: 120 },
    ]);
  });

  it('moves a cursor only past the leading run of settled rows', () => {
    const rows = [{ createdAt: 1 }, { createdAt: 5 }, { createdAt: 11 }, { createdAt: 2 }];
    expect(settledPrefix(rows, 10)).toEqual([{ createdAt: 1 }, { createdAt: 5 }]);
    expect(settledPrefix(rows, 20)).toHaveLength(4);
    expect(settledPrefix([{ createdAt: 30 }], 20)).toEqual([]);
  });

  it('merges increments of the same bucket', () => {
    expect(
      mergeIncrements([
        { bucket: 1, metric: 'a', dimension: '', value: 2 },
        { bucket: 1, metric: 'a', dimension: '', value: 3 },
        { bucket: 1, metric: 'a', dimension: 'x', value: 1 },
      ]),
    ).toEqual([
      { bucket: 1, metric: 'a', dimension: '', value: 5 },
      { bucket: 1, metric: 'a', dimension: 'x', value: 1 },
    ]);
  });

  it('classifies replies for the error rate', () => {
    expect(requestOutcome(200, 0)).toBe('ok');
    expect(requestOutcome(200, undefined)).toBe('ok');
    expect(requestOutcome(200, 1001)).toBe('client_error');
    expect(requestOutcome(404, undefined)).toBe('client_error');
    expect(requestOutcome(500, 9999)).toBe('server_error');
    expect(requestOutcome(503, undefined)).toBe('server_error');
  });

  it('lists bucket starts inclusively', () => {
    expect(bucketStarts(0, 2 * HOUR_MS, HOUR_MS)).toEqual([0, HOUR_MS, 2 * HOUR_MS]);
  });
});
