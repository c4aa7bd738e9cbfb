import { AppError } from '../common/app-error';
import { isDisabledAt, disabledMessage } from '../users/user';
import { checkedReason, disableTerms } from './admin-disable-terms';

const NOW = 1_732_200_000_000;

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).message;
  }
  throw new Error('accepted');
}

describe('disable terms', () => {
  it('turns a duration into an end and trims the reason', () => {
    expect(disableTerms({ disabled: true, durationSeconds: 60, reason: '  Spam  ' }, NOW)).toEqual({
      until: NOW + 60_000,
      reason: 'Spam',
    });
    expect(disableTerms({ disabled: true }, NOW)).toEqual({ until: null, reason: null });
    expect(disableTerms({ disabled: false }, NOW)).toEqual({ until: null, reason: null });
    expect(disableTerms({ disabled: true, durationSeconds: 31_536_000 }, NOW).until).toBe(NOW + 31_536_000_000);
  });

  it.each([59, 0, -1, 31_536_001, 60.5, Number.NaN, Number.POSITIVE_INFINITY, 1e300])(
    'refuses duration_seconds %p',
    (value) => {
      expect(refusal(() => disableTerms({ disabled: true, durationSeconds: value }, NOW))).toMatch(
        /^duration_seconds: /,
      );
    },
  );

  it.each(['', '   ', 'x'.repeat(201), 'a\nb', 'a\u0007b', '\u0085'])('refuses reason %p', (value) => {
    expect(refusal(() => checkedReason(value))).toMatch(/^reason: /);
  });

  it('counts characters, not UTF-16 units, against the 200 limit', () => {
    expect(checkedReason('😀'.repeat(200))).toBe('😀'.repeat(200));
  });

  it('refuses terms on an enable', () => {
    expect(refusal(() => disableTerms({ disabled: false, durationSeconds: 60 }, NOW))).toMatch(/^duration_seconds: /);
    expect(refusal(() => disableTerms({ disabled: false, reason: 'x' }, NOW))).toMatch(/^reason: /);
  });

  it('a disable with an end lapses at that millisecond', () => {
    const user = { disabled: true, disabledUntil: NOW + 1000, disabledReason: 'Wait' };
    expect(isDisabledAt(user, NOW + 999)).toBe(true);
    expect(isDisabledAt(user, NOW + 1000)).toBe(false);
    expect(isDisabledAt({ disabled: true, disabledUntil: null }, Number.MAX_SAFE_INTEGER)).toBe(true);
    expect(isDisabledAt({ disabled: false, disabledUntil: NOW + 1000 }, NOW)).toBe(false);
    expect(disabledMessage(user)).toBe('Wait');
    expect(disabledMessage({ disabledReason: null })).toBe('user is disabled');
  });
});
