import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintId } from '../database/columns';

/** One row (id 1): the delivery sequence's head. */
@Entity('outbox_sequence')
export class OutboxSequenceEntity {
  @PrimaryColumn({ type: 'int' })
  id: number;

  @Column({ name: 'last_position', type: 'bigint', transformer: bigintId })
  lastPosition: string;
}
