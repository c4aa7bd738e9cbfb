import { Injectable } from '@nestjs/common';
import { DataSource, EntitySubscriberInterface, TransactionCommitEvent } from 'typeorm';
import { OUTBOX_WRITTEN } from './outbox.repository';
import { OutboxSequencer } from './outbox-sequencer';

/** Wakes the sequencer when a transaction that appended events commits (not before: it would find nothing). */
@Injectable()
export class OutboxCommitSubscriber implements EntitySubscriberInterface {
  constructor(
    dataSource: DataSource,
    private readonly sequencer: OutboxSequencer,
  ) {
    dataSource.subscribers.push(this);
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    const data = event.queryRunner.data as Record<string, unknown> | undefined;
    if (!data?.[OUTBOX_WRITTEN]) return;
    data[OUTBOX_WRITTEN] = false;
    this.sequencer.kick();
  }

  afterTransactionRollback(event: TransactionCommitEvent): void {
    const data = event.queryRunner.data as Record<string, unknown> | undefined;
    if (data) data[OUTBOX_WRITTEN] = false;
  }
}
