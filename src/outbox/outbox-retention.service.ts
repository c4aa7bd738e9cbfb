import { Injectable } from '@nestjs/common';
import { OutboxSequenceRepository } from './outbox-sequence.repository';

/** The retention pass's way into the outbox: delivered events past their time go. */
@Injectable()
export class OutboxRetention {
  constructor(private readonly sequence: OutboxSequenceRepository) {}

  /**
   * Deletes up to `limit` sequenced events created before `cutoff`, and their recipient rows;
   * answers how many events went. Unsequenced events are never pruned (they are not delivered yet),
   * nor those after `upToPosition` when given (webhook endpoints still to handle them).
   */
  prune(cutoff: number, limit: number, upToPosition: string | null = null): Promise<number> {
    return this.sequence.prune(cutoff, limit, upToPosition);
  }
}
