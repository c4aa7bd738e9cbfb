import { mergeKey, MergeFields } from './merge-key';

const base: MergeFields = {
  userId: '1',
  deviceId: 'd',
  platform: 'ios',
  severity: 'fatal',
  errorCode: 'x',
  operation: 'op',
  buildId: null,
};
const minuteStart = 1_700_000_040_000; // a whole minute

describe('mergeKey', () => {
  it('is equal within one clock minute and differs across minutes', () => {
    expect(mergeKey(base, minuteStart)).toBe(mergeKey(base, minuteStart + 59_999));
    expect(mergeKey(base, minuteStart)).not.toBe(mergeKey(base, minuteStart + 60_000));
  });

  it.each(['userId', 'deviceId', 'platform', 'severity', 'errorCode', 'operation'] as const)(
    'differs when %s differs',
    (field) => {
      expect(mergeKey({ ...base, [field]: 'other' }, minuteStart)).not.toBe(mergeKey(base, minuteStart));
    },
  );

  it('keeps a null build apart from an empty one', () => {
    expect(mergeKey({ ...base, buildId: '' }, minuteStart)).not.toBe(mergeKey(base, minuteStart));
  });

  it('cannot be confused by shifting text between fields', () => {
    expect(mergeKey({ ...base, deviceId: 'ab', platform: 'c' }, minuteStart)).not.toBe(
      mergeKey({ ...base, deviceId: 'a', platform: 'bc' }, minuteStart),
    );
  });
});
