import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import { AppError } from '../common/app-error';
import { ErrorCode } from '../common/error-code';
import { ConversationAccessService } from '../conversation-views/conversation-access.service';
import { directConversationId } from '../conversations/conversation-id';
import { ConversationStore } from '../conversations/conversation-store.service';
import type { ClientAck } from '../contract/events';
import { RateLimiter } from '../common/rate-limit/rate-limiter';
import { ack } from './client-messages';
import { ephemeral, refusalOf, userRoom } from './realtime-events';
import { RealtimeService } from './realtime.service';
import type { SocketSession } from './socket-session';

/** One relay per typer and conversation per second, shared across instances when Redis is there. */
const RELAY_RULE = { limit: 1, windowMs: 1000 };

/**
 * Typing indicators: relayed, never stored. The other members who can see the conversation
 * receive it, each with their own conversation ID; someone who may not send there (not a
 * current member; not friends, or blocked, one-to-one) may not signal typing either.
 */
@Injectable()
export class TypingService {
  private readonly logger = new Logger('Typing');

  constructor(
    private readonly access: ConversationAccessService,
    private readonly conversations: ConversationStore,
    private readonly realtime: RealtimeService,
    private readonly limiter: RateLimiter,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async typing(session: SocketSession, conversationId: string): Promise<ClientAck> {
    try {
      const view = await this.access.resolveForViewer(session.user.internalId, conversationId, 'conversation_id', true);
      if (view.member.visibleToSeq !== null)
        throw new AppError(
          ErrorCode.CONVERSATION_INACCESSIBLE,
          'conversation_id: you are no longer a member of this conversation',
        );
      let rooms: string[];
      let theirId: string;
      if (view.group) {
        const members = await this.conversations.findCurrentMembers(view.conversation.id);
        rooms = members.filter((m) => m.userId !== session.user.internalId).map((m) => userRoom(m.userId));
        theirId = conversationId;
      } else {
        const relationship = view.relationship;
        if (!relationship?.friends || relationship.blocked)
          throw new AppError(
            ErrorCode.SEND_FORBIDDEN,
            'conversation_id: you cannot send to this user, so typing is not relayed',
          );
        rooms = view.peer ? [userRoom(String(view.peer.id))] : [];
        theirId = directConversationId(session.user.externalId);
      }
      if (
        rooms.length &&
        (await this.limiter.hit(`typing:${session.user.internalId}:${view.conversation.id}`, RELAY_RULE))
      ) {
        this.realtime.emitToRooms(
          rooms,
          ephemeral(
            'conversation.typing',
            { conversation_id: theirId, user_id: session.user.externalId },
            this.clock.now(),
          ),
        );
      }
      return ack(ErrorCode.OK, 'ok');
    } catch (error) {
      return refusalOf(error, this.logger);
    }
  }
}
