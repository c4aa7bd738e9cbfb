import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { DurableEventType, MessageEventType } from '../contract/events';
import type { ConversationEventInput, OutboxEventInput } from './outbox-event-input';
import { TransactionRunner } from '../database/transaction-runner';
import { OutboxSequencer } from './outbox-sequencer';
import { OutboxRepository } from './outbox.repository';

/**
 * How every module records the events of its change: appended in the change's own transaction
 * (so an event exists if and only if its change committed), and handed to the sequencer once
 * that transaction has committed (TransactionRunner.afterCommit), which gives them delivery
 * positions and passes them to the real-time gateway (OutboxSequencer, DeliveryHub).
 */
@Injectable()
export class OutboxWriter {
  constructor(
    private readonly outbox: OutboxRepository,
    private readonly tx: TransactionRunner,
    private readonly sequencer: OutboxSequencer,
  ) {}

  /** One function for every transaction, so a transaction that appends many events wakes the sequencer once. */
  private readonly wakeSequencer = (): void => this.sequencer.kick();

  /** An event addressed to each of `recipients`, with a private part per recipient where the type has one. */
  async append<T extends DurableEventType>(
    manager: EntityManager,
    event: OutboxEventInput<T>,
    now: number,
    eventId?: string,
  ): Promise<string> {
    const id = await this.outbox.append(manager, event, now, eventId);
    this.tx.afterCommit(manager, this.wakeSequencer);
    return id;
  }

  /**
   * A message event, stored once for its conversation: every member whose visible range holds
   * the message's sequence receives it, whatever the group's size.
   */
  async appendForConversation<T extends MessageEventType>(
    manager: EntityManager,
    event: ConversationEventInput<T>,
    now: number,
    eventId?: string,
  ): Promise<string> {
    const id = await this.outbox.appendForConversation(manager, event, now, eventId);
    this.tx.afterCommit(manager, this.wakeSequencer);
    return id;
  }
}
