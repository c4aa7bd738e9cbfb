import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventStreamRepository } from './event-stream.repository';
import { EventStream } from './event-stream.service';
import { OutboxEventEntity } from './outbox-event.entity';
import { OutboxRecipientEntity } from './outbox-recipient.entity';
import { OutboxSequenceEntity } from './outbox-sequence.entity';
import { OutboxSequenceRepository } from './outbox-sequence.repository';
import { OutboxSequencer } from './outbox-sequencer';
import { OutboxRepository } from './outbox.repository';
import { OutboxWriter } from './outbox-writer';
import { ConversationAudienceRef } from './conversation-audience';
import { OutboxRetention } from './outbox-retention.service';

/**
 * Every state-changing module writes its events here, inside its own transaction; the
 * sequencer then gives them delivery positions in commit order.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([OutboxEventEntity, OutboxRecipientEntity, OutboxSequenceEntity])],
  providers: [
    OutboxRepository,
    OutboxSequenceRepository,
    OutboxSequencer,
    OutboxWriter,
    OutboxRetention,
    EventStreamRepository,
    EventStream,
    ConversationAudienceRef,
  ],
  exports: [OutboxWriter, EventStream, OutboxRetention, ConversationAudienceRef],
})
export class OutboxModule {}
