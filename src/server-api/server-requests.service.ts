import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { AppError } from '../common/app-error';
import { canonicalJson } from '../common/canonical-json';
import { Clock } from '../common/clock';
import { ServerRequestsRepository } from './server-requests.repository';

/** Writes the idempotency record of a write, in the write's own transaction. */
export type RecordReply<R> = (manager: EntityManager, reply: R) => Promise<void>;

/** The hash a repeat must match: the operation and the request without its request_id, keys sorted. */
export function requestHash(operation: string, request: object): string {
  const { request_id: _omitted, ...rest } = request as Record<string, unknown>;
  return createHash('sha256')
    .update(canonicalJson([operation, rest]))
    .digest('hex');
}

/**
 * Idempotency of server API writes by `request_id`. The record is inserted in the transaction
 * of the change, so the unique key on request_id decides which of two identical requests at
 * once takes effect: the other's transaction fails on it (or on a rule the winner's change now
 * breaks), rolls back, and answers the stored reply. Only successful replies are stored: a
 * refused request may be sent again with the same request_id once the cause is fixed.
 */
@Injectable()
export class ServerRequestsService {
  constructor(
    private readonly requests: ServerRequestsRepository,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async once<R>(
    operation: string,
    request: { request_id: string },
    perform: (record: RecordReply<R>) => Promise<R>,
  ): Promise<R> {
    const hash = requestHash(operation, request);
    const stored = await this.replay<R>(operation, request.request_id, hash);
    if (stored) return stored.reply;
    const record: RecordReply<R> = (manager, reply) =>
      this.requests.insert(manager, {
        requestId: request.request_id,
        operation,
        requestHash: hash,
        replyJson: JSON.stringify(reply),
        createdAt: this.clock.now(),
      });
    try {
      return await perform(record);
    } catch (error) {
      const winner = await this.replay<R>(operation, request.request_id, hash);
      if (winner) return winner.reply;
      throw error;
    }
  }

  /** For the retention job. */
  pruneBefore(cutoff: number, batchSize: number): Promise<number> {
    return this.requests.deleteOlderThan(cutoff, batchSize);
  }

  private async replay<R>(operation: string, requestId: string, hash: string): Promise<{ reply: R } | null> {
    const stored = await this.requests.findByRequestId(requestId);
    if (!stored) return null;
    if (stored.operation !== operation || stored.requestHash !== hash)
      throw AppError.invalid('request_id', 'was already used for a different request');
    return { reply: JSON.parse(stored.replyJson) as R };
  }
}
