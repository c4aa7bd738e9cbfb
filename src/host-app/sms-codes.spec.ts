import { SMS_CODE_DIGITS, hashSmsCode, isSmsCodeShaped, newSmsCode, smsCodeMatches } from './sms-codes';

describe('sms-codes', () => {
  it('generates 6-digit codes, zero-padded, spread over the range', () => {
    const codes = Array.from({ length: 2000 }, () => newSmsCode());
    for (const code of codes) expect(code).toMatch(/^[0-9]{6}$/);
    expect(new Set(codes).size).toBeGreaterThan(1900);
    expect(SMS_CODE_DIGITS).toBe(6);
  });

  it('matches the hashed code for its phone and purpose only', () => {
    const stored = hashSmsCode('+8613800138000', 'login', '012345');
    expect(stored).not.toContain('012345');
    expect(smsCodeMatches(stored, '+8613800138000', 'login', '012345')).toBe(true);
    expect(smsCodeMatches(stored, '+8613800138000', 'login', '012346')).toBe(false);
    expect(smsCodeMatches(stored, '+8613800138001', 'login', '012345')).toBe(false);
    expect(smsCodeMatches(stored, '+8613800138000', 'signup', '012345')).toBe(false);
  });

  it('salts every hash and never matches a malformed value', () => {
    expect(hashSmsCode('+8613800138000', 'login', '111111')).not.toBe(hashSmsCode('+8613800138000', 'login', '111111'));
    expect(smsCodeMatches('garbage', '+8613800138000', 'login', '111111')).toBe(false);
    expect(smsCodeMatches(hashSmsCode('+8613800138000', 'login', '111111'), '+8613800138000', 'login', '11111')).toBe(
      false,
    );
    expect(isSmsCodeShaped('12345a')).toBe(false);
  });
});
