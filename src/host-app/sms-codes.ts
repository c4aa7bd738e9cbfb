import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';

/** Codes are 6 digits, live 5 minutes, are used once and die at the fifth wrong try. */
export const SMS_CODE_DIGITS = 6;
export const SMS_CODE_TTL_MS = 5 * 60_000;
export const SMS_CODE_MAX_ATTEMPTS = 5;

export function newSmsCode(): string {
  return String(randomInt(0, 10 ** SMS_CODE_DIGITS)).padStart(SMS_CODE_DIGITS, '0');
}

export function isSmsCodeShaped(value: string): boolean {
  return /^[0-9]{6}$/.test(value);
}

function digest(salt: string, phone: string, purpose: string, code: string): string {
  return createHash('sha256').update(`${salt}\n${phone}\n${purpose}\n${code}`).digest('hex');
}

/**
 * `<salt>$<sha256(salt, phone, purpose, code)>`. A million codes cannot be protected from an
 * offline search by any hash; hashing keeps the live code out of plain sight (database consoles,
 * backups, query logs), and its 5-minute life and 5 tries are the real protection. Phone and
 * purpose are bound in so that a row copied to another target matches nothing.
 */
export function hashSmsCode(phone: string, purpose: string, code: string): string {
  const salt = randomBytes(16).toString('base64url');
  return `${salt}$${digest(salt, phone, purpose, code)}`;
}

/** Whether `code` is the one hashed into `stored`, compared in constant time. */
export function smsCodeMatches(stored: string, phone: string, purpose: string, code: string): boolean {
  const [salt, expected] = stored.split('$');
  if (!salt || !expected || !isSmsCodeShaped(code)) return false;
  const actual = Buffer.from(digest(salt, phone, purpose, code), 'hex');
  const wanted = Buffer.from(expected, 'hex');
  return actual.length === wanted.length && timingSafeEqual(actual, wanted);
}
