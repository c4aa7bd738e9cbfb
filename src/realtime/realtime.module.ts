import { Module } from '@nestjs/common';
import { ConversationViewsModule } from '../conversation-views/conversation-views.module';
import { ConversationsModule } from '../conversations/conversations.module';
import { FriendsModule } from '../friends/friends.module';
import { HealthModule } from '../health/health.module';
import { ImTokenModule } from '../im-token/im-token.module';
import { PresenceController } from './presence.controller';
import { PresenceService } from './presence.service';
import { RealtimeGateway } from './realtime.gateway';
import { RealtimeService } from './realtime.service';
import { SocketCensus } from './socket-census';
import { TypingService } from './typing.service';

/** The socket.io gateway: delivery of the outbox's events, resume, renewal, typing and presence. */
@Module({
  imports: [ImTokenModule, ConversationsModule, ConversationViewsModule, HealthModule, FriendsModule],
  controllers: [PresenceController],
  providers: [RealtimeGateway, RealtimeService, TypingService, PresenceService, SocketCensus],
  exports: [RealtimeService, SocketCensus, PresenceService],
})
export class RealtimeModule {}
