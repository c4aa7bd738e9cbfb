import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CapabilityGuard } from '../common/capability.guard';
import { ConversationViewsModule } from '../conversation-views/conversation-views.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { ImTokenModule } from '../im-token/im-token.module';
import { MessagesModule } from '../messages/messages.module';
import { RtcCallbackModule } from '../rtc-callback/rtc-callback.module';
import { CallParticipantEntity } from './call-participant.entity';
import { CallRecorder } from './call-recorder.service';
import { CallRelationships } from './call-relationships.service';
import { CallRoomEventsService } from './call-room-events.service';
import { CallEntity } from './call.entity';
import { CallsController } from './calls.controller';
import { CallsRepository } from './calls.repository';
import { CallStartService } from './call-start.service';
import { CallTransitions } from './call-transitions';
import { CallsService } from './calls.service';
import { CallHistory } from './call-history.service';
import { RelationshipChangesModule } from '../relationship-changes/relationship-changes.module';
import { RtcCredentialsService } from './rtc-credentials';

/** Audio/video calls on the provider's rooms: signalling, credentials, and state from the room callback. */
@Module({
  imports: [
    TypeOrmModule.forFeature([CallEntity, CallParticipantEntity]),
    ImTokenModule,
    ConversationsModule,
    ConversationViewsModule,
    MessagesModule,
    RtcCallbackModule,
    RelationshipChangesModule,
  ],
  controllers: [CallsController],
  providers: [
    CallsRepository,
    CallsService,
    CallStartService,
    CallTransitions,
    CallRecorder,
    CallRelationships,
    CallRoomEventsService,
    RtcCredentialsService,
    CapabilityGuard,
    CallHistory,
  ],
  exports: [CallHistory],
})
export class CallsModule {}
