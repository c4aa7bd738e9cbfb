import { Injectable } from '@nestjs/common';
import type { DeliverableEvent, SequencedBatch, SequencedEvent } from './deliverable-event';
export type { SharedStoredEvent } from './outbox-sequence.repository';
import { EventStreamRepository } from './event-stream.repository';
import { OutboxSequenceRepository, SharedStoredEvent } from './outbox-sequence.repository';
import { OutboxSequencer } from './outbox-sequencer';

/**
 * The read side of the outbox, for the real-time gateway: the delivery sequence's head, the
 * batches this instance sequences (in memory), sequenced events read back by position (batches
 * of other instances), and one user's stream after a resume point.
 */
@Injectable()
export class EventStream {
  constructor(
    private readonly sequence: OutboxSequenceRepository,
    private readonly sequencer: OutboxSequencer,
    private readonly streams: EventStreamRepository,
  ) {}

  /** The last position assigned. */
  head(): Promise<string> {
    return this.sequence.head();
  }

  /** Called with every batch this instance sequences, after its positions committed. */
  onSequenced(listener: (batch: SequencedBatch) => void): void {
    this.sequencer.onSequenced(listener);
  }

  /** Resolves once every event committed before the call has a position (see OutboxSequencer.flush). */
  flush(): Promise<void> {
    return this.sequencer.flush();
  }

  /** Sequenced events in (after, upTo], in position order, with their recipients. */
  sequencedBetween(after: string, upTo: string, limit: number): Promise<SequencedEvent[]> {
    return this.sequence.sequencedBetween(after, upTo, limit);
  }

  /** Up to `limit` sequenced events after `after`, shared parts only (webhooks; see OutboxSequenceRepository.sharedAfter). */
  sharedAfter(after: string, limit: number): Promise<SharedStoredEvent[]> {
    return this.sequence.sharedAfter(after, limit);
  }

  /** Creation time of the first sequenced event after `after` (null: none), for a reader's lag. */
  firstCreatedAfter(after: string): Promise<number | null> {
    return this.sequence.firstCreatedAfter(after);
  }

  /** The user's events after `afterPosition`, oldest first, each with the user's private part. */
  listForUser(userId: string, afterPosition: string, limit: number): Promise<DeliverableEvent[]> {
    return this.streams.listForUser(userId, afterPosition, limit);
  }

  /** How many of the user's events lie after `afterPosition`, counted up to `cap`. */
  countForUser(userId: string, afterPosition: string, cap: number): Promise<number> {
    return this.streams.countForUser(userId, afterPosition, cap);
  }
}
