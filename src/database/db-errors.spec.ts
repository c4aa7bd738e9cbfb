import { QueryFailedError } from 'typeorm';
import { AppError } from '../common/app-error';
import { ErrorCode } from '../common/error-code';
import { isDatabaseUnavailable, isTransientConflict, isUniqueViolation } from './db-errors';

const failed = (driverError: Record<string, unknown>): QueryFailedError =>
  new QueryFailedError('UPDATE x', [], Object.assign(new Error(String(driverError.message ?? 'x')), driverError));

describe('isTransientConflict', () => {
  it.each([
    ['MySQL deadlock', { code: 'ER_LOCK_DEADLOCK', errno: 1213 }],
    ['MySQL lock wait timeout', { code: 'ER_LOCK_WAIT_TIMEOUT', errno: 1205 }],
    ['MariaDB snapshot isolation conflict', { code: 'ER_CHECKREAD', errno: 1020 }],
    ['SQLite busy', { code: 'SQLITE_BUSY' }],
  ])('retries a %s', (_name, error) => {
    expect(isTransientConflict(failed(error))).toBe(true);
  });

  it('does not retry a unique violation or a refused request (whose codes are numbers of our own)', () => {
    expect(isTransientConflict(failed({ code: 'ER_DUP_ENTRY', errno: 1062 }))).toBe(false);
    expect(isTransientConflict(new AppError(ErrorCode.SEND_FORBIDDEN, 'no'))).toBe(false);
  });
});

describe('isUniqueViolation', () => {
  it('names the violated key on both drivers and ignores the duplicated value', () => {
    expect(
      isUniqueViolation(
        failed({
          code: 'ER_DUP_ENTRY',
          errno: 1062,
          message: "Duplicate entry 'sender' for key 'UQ_messages_sender_client_id'",
        }),
        'sender',
      ),
    ).toBe(true);
    expect(
      isUniqueViolation(
        failed({ code: 'ER_DUP_ENTRY', errno: 1062, message: "Duplicate entry 'sender' for key 'UQ_other'" }),
        'sender',
      ),
    ).toBe(false);
    expect(
      isUniqueViolation(
        failed({
          code: 'SQLITE_CONSTRAINT_UNIQUE',
          message: 'UNIQUE constraint failed: messages.sender_id, messages.client_message_id',
        }),
        'sender',
      ),
    ).toBe(true);
  });
});

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a closed pool', 'Pool is closed.'],
    ['a data source closing at shutdown', 'Connection is not established with mysql database'],
  ])('answers 503 for %s', (_name, message) => {
    expect(isDatabaseUnavailable(new Error(message))).toBe(true);
  });

  it('leaves other errors alone', () => {
    expect(isDatabaseUnavailable(new Error('Connection is not established, says a library of ours'))).toBe(false);
  });
});
