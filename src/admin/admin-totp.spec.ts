import { newTotpSecret, totpCodeAt, totpStep, totpUri } from './admin-totp';

// RFC 6238 appendix B, SHA-1: the ASCII secret "12345678901234567890" gives 94287082 at 59 s;
// its last six digits are the 6-digit code.
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

describe('admin TOTP (RFC 6238)', () => {
  it('matches the RFC test vector', () => {
    expect(totpCodeAt(RFC_SECRET, 59_000)).toBe('287082');
    expect(totpStep(RFC_SECRET, '287082', 59_000)).toBe(1);
  });

  it('accepts a code one step early or late, with the step it belongs to, and nothing further', () => {
    const secret = newTotpSecret();
    const now = 1_700_000_000_000;
    const step = Math.floor(now / 30_000);
    expect(totpStep(secret, totpCodeAt(secret, now), now)).toBe(step);
    expect(totpStep(secret, totpCodeAt(secret, now - 30_000), now)).toBe(step - 1);
    expect(totpStep(secret, totpCodeAt(secret, now + 30_000), now)).toBe(step + 1);
    expect(totpStep(secret, totpCodeAt(secret, now - 90_000), now)).toBeNull();
  });

  it('refuses anything but six digits', () => {
    const secret = newTotpSecret();
    for (const code of ['', '12345', '1234567', 'abcdef', ' 123456', '12 456'])
      expect(totpStep(secret, code, 0)).toBeNull();
  });

  it('makes 160-bit base32 secrets and an otpauth URI for authenticator apps', () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(newTotpSecret()).not.toBe(secret);
    expect(totpUri(secret, 'alice')).toBe(
      `otpauth://totp/IM%20Admin:alice?issuer=IM%20Admin&secret=${secret}&algorithm=SHA1&digits=6&period=30`,
    );
  });
});
