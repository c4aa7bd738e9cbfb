import { AppError } from '../common/app-error';
import { checkPassword, maskPhone, newImUserId, parsePhone } from './host-app-rules';

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe(1004);
    return (error as AppError).message;
  }
  throw new Error('not refused');
};

describe('host-app rules', () => {
  it('accepts E.164 numbers only', () => {
    expect(parsePhone('+8613800138000')).toBe('+8613800138000');
    expect(parsePhone('+12025550123')).toBe('+12025550123');
    expect(parsePhone('+49301234')).toBe('+49301234');
    for (const bad of ['8613800138000', '+0123456789', '+1234567', '+1234567890123456', '+86 138 0013 8000', '', '+'])
      expect(refusal(() => parsePhone(bad))).toMatch(/^phone: must be an E\.164 number/);
  });

  it('names the field of a password that breaks the policy, never the value', () => {
    expect(() => checkPassword('correct horse', 'password')).not.toThrow();
    expect(refusal(() => checkPassword('short1', 'password'))).toBe('password: must be 8–128 characters');
    expect(refusal(() => checkPassword('x'.repeat(129), 'new_password'))).toBe(
      'new_password: must be 8–128 characters',
    );
    expect(refusal(() => checkPassword(' \t        ', 'password'))).toBe('password: must not be only whitespace');
  });

  it('makes random, non-phone IM user IDs and masks phones for logs', () => {
    const id = newImUserId();
    expect(id).toMatch(/^h_[0-9a-f]{24}$/);
    expect(newImUserId()).not.toBe(id);
    expect(maskPhone('+8613800138000')).toBe('+86…00');
  });
});
