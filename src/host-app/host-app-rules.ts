import { randomBytes } from 'node:crypto';
import { AppError } from '../common/app-error';
import { MAX_PASSWORD_BYTES } from '../common/security/password-hash';

/** E.164: "+", then 8–15 digits, the first not 0 (a country code never starts with 0). */
const E164 = /^\+[1-9][0-9]{7,14}$/;

/** The phone number in E.164, or a 1004 naming `field`. Spaces, dashes and parentheses are not accepted. */
export function parsePhone(value: string, field = 'phone'): string {
  if (!E164.test(value)) throw AppError.invalid(field, 'must be an E.164 number: "+" and 8–15 digits');
  return value;
}

export const PASSWORD_MIN_CHARS = 8;
export const PASSWORD_MAX_CHARS = 128;

/**
 * Host account passwords: 8–128 characters (code points), not only whitespace, at most
 * MAX_PASSWORD_BYTES bytes. The message names the field and never echoes the value.
 */
export function checkPassword(password: string, field: string): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN_CHARS || length > PASSWORD_MAX_CHARS)
    throw AppError.invalid(field, `must be ${PASSWORD_MIN_CHARS}–${PASSWORD_MAX_CHARS} characters`);
  if (password.trim() === '') throw AppError.invalid(field, 'must not be only whitespace');
  if (Buffer.byteLength(password) > MAX_PASSWORD_BYTES)
    throw AppError.invalid(field, `must be at most ${MAX_PASSWORD_BYTES} bytes`);
}

/**
 * The IM user ID of a new account: random (the phone number would be visible to every user the
 * account chats with) and stable (the account keeps it for life).
 */
export function newImUserId(): string {
  return `h_${randomBytes(12).toString('hex')}`;
}

/** A phone number as it may appear in a log line: country-code-ish prefix and the last two digits. */
export function maskPhone(phone: string): string {
  return `${phone.slice(0, 3)}…${phone.slice(-2)}`;
}
