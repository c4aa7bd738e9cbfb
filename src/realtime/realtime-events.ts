import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AppError } from '../common/app-error';
import { ErrorCode } from '../common/error-code';
import { isDatabaseUnavailable } from '../database/db-errors';
import type { ClientAck, EphemeralEventMap, EventEnvelope } from '../contract/events';
import { ack } from './client-messages';
import type { ImServer, ImSocket } from './socket-session';

export const userRoom = (userId: string): string => `u:${userId}`;

/** The ephemeral events sent in an envelope (`connection.ready` is sent flat). */
export type EphemeralEventType = Exclude<keyof EphemeralEventMap, 'connection.ready'>;

/** An ephemeral event's envelope, discriminated by `type`. */
export type EphemeralEnvelope = {
  [T in EphemeralEventType]: EventEnvelope<T, EphemeralEventMap[T]>;
}[EphemeralEventType];

/** Where an ephemeral event goes: one socket, or the sockets of some rooms on every instance. */
type EphemeralTarget = ImSocket | ReturnType<ImServer['to']>;

/**
 * Emits an ephemeral event through socket.io's emit typed by the event map: each case names
 * one event, so its envelope is checked against that event's argument.
 */
export function emitEphemeral(target: EphemeralTarget, envelope: EphemeralEnvelope): void {
  switch (envelope.type) {
    case 'conversation.typing':
      target.emit(envelope.type, envelope);
      return;
    case 'presence.changed':
      target.emit(envelope.type, envelope);
      return;
    case 'session.expired':
      target.emit(envelope.type, envelope);
      return;
    case 'session.revoked':
      target.emit(envelope.type, envelope);
      return;
  }
}

/** An ephemeral event: not stored, not replayed. */
export function ephemeral<T extends EphemeralEventType>(
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
