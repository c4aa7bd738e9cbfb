import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AppError } from '../common/app-error';
import { ErrorCode } from '../common/error-code';
import { isDatabaseUnavailable } from '../database/db-errors';
import type { ClientAck, EphemeralEventMap, EventEnvelope } from '../contract/events';
import { ack } from './client-messages';

export const userRoom = (userId: string): string => `u:${userId}`;

/** An ephemeral event: not stored, not replayed. */
export function ephemeral<T extends Exclude<keyof EphemeralEventMap, 'connection.ready'>>(
  type: T,
  data: EphemeralEventMap[T],
  now: number,
): EventEnvelope<T, EphemeralEventMap[T]> {
  return { event_id: randomUUID(), type, position: null, created_at: now, data };
}

/** An error as a client acknowledgement (or handshake refusal): the code and a message safe to show. */
export function refusalOf(error: unknown, log: Logger): ClientAck {
  if (error instanceof AppError) return ack(error.code, error.message);
  if (isDatabaseUnavailable(error)) return ack(ErrorCode.INTERNAL, 'service temporarily unavailable; retry later');
  const traceId = randomUUID();
  log.error(`unexpected error [${traceId}]: ${(error as Error)?.message}`, (error as Error)?.stack);
  return ack(ErrorCode.INTERNAL, 'internal error', traceId);
}
