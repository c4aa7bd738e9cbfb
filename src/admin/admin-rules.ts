import { AppError } from '../common/app-error';
import { MAX_PASSWORD_BYTES } from '../common/security/password-hash';
import { ADMIN_PASSWORD_MIN, ADMIN_USERNAME_PATTERN } from '../config/admin-config';

/** Admin passwords: at least ADMIN_PASSWORD_MIN characters, at most MAX_PASSWORD_BYTES bytes. */
export function checkPassword(password: string, field: string): void {
  if (password.length < ADMIN_PASSWORD_MIN)
    throw AppError.invalid(field, `must be at least ${ADMIN_PASSWORD_MIN} characters`);
  if (Buffer.byteLength(password) > MAX_PASSWORD_BYTES)
    throw AppError.invalid(field, `must be at most ${MAX_PASSWORD_BYTES} bytes`);
}

export function checkUsername(username: string, field = 'username'): void {
  if (!ADMIN_USERNAME_PATTERN.test(username))
    throw AppError.invalid(
      field,
      'must be 3-32 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit',
    );
}
