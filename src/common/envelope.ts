import { ErrorCode } from './error-code';

/** The reply shape of every JSON endpoint except the room callback (spec 4). */
export interface Envelope<T> {
  code: number;
  msg: string;
  data: T | null;
}

export function success<T>(data: T): Envelope<T> {
  return { code: ErrorCode.OK, msg: 'ok', data };
}

export function failure(code: ErrorCode, msg: string): Envelope<never> {
  return { code, msg, data: null };
}
