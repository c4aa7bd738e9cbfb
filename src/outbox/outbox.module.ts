import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutboxEventEntity } from './outbox-event.entity';
import { OutboxRecipientEntity } from './outbox-recipient.entity';
import { OutboxRepository } from './outbox.repository';

/** Every state-changing module writes its events here, inside its own transaction. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([OutboxEventEntity, OutboxRecipientEntity])],
  providers: [OutboxRepository],
  exports: [OutboxRepository],
})
export class OutboxModule {}
