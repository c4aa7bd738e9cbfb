import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { ConversationAccessService, ViewerConversation } from '../conversation-views/conversation-access.service';
import { directConversationId } from '../conversations/conversation-id';
import type { CallEventType, DurableEventMap } from '../contract/events';
import { MessagingService } from '../messages/messaging.service';
import { OutboxWriter } from '../outbox/outbox-writer';
import { UsersService } from '../users/users.service';
import { CallEndReason, CallEntity } from './call.entity';
import { CallParticipantEntity } from './call-participant.entity';
import { CallReply, durationOf, toCallReply } from './call.mapper';
import { CallsRepository } from './calls.repository';

const EXTERNAL_IDS_KEPT = 10_000;

/** Everything a change of a call needs to know about it, read before its transaction. */
export interface CallContext {
  call: CallEntity;
  participants: CallParticipantEntity[];
  externalIds: Map<string, string>;
  /** The caller's view of the conversation (for the summary message); null when it is gone. */
  callerView: ViewerConversation | null;
}

/**
 * What every change of a call shares: names and replies, the outbox events of the call, and
 * ending it (with the summary message in the conversation, in the same transaction).
 */
@Injectable()
export class CallRecorder {
  private readonly logger = new Logger('Calls');
  private readonly externalIds = new Map<string, string>();

  constructor(
    private readonly calls: CallsRepository,
    private readonly users: UsersService,
    private readonly access: ConversationAccessService,
    private readonly messaging: MessagingService,
    private readonly outbox: OutboxWriter,
  ) {}

  /**
   * Reads the call's context outside any transaction (the reads here use the pool). `withView`
   * false leaves out the caller's view of the conversation, for a change that cannot end the call.
   */
  async context(call: CallEntity, withView = true): Promise<CallContext> {
    const participants = await this.calls.participantsOf(call.id);
    const externalIds = await this.externalIdsOf([call.callerId, ...participants.map((p) => p.userId)]);
    let callerView: ViewerConversation | null = null;
    try {
      if (withView) callerView = await this.access.resolveForViewer(call.callerId, call.callerConversationId);
    } catch {
      // The conversation is gone for the caller (the group was deleted): no summary message.
    }
    return { call, participants, externalIds, callerView };
  }

  /**
   * The users' external IDs. A user's external ID is set when the user is created and never
   * changes, so each is read once per instance (the oldest forgotten past EXTERNAL_IDS_KEPT).
   */
  async externalIdsOf(userIds: readonly string[]): Promise<Map<string, string>> {
    const missing = [...new Set(userIds.filter((id) => !this.externalIds.has(id)))];
    if (missing.length > 0)
      for (const user of await this.users.findByIds(missing)) {
        if (this.externalIds.size >= EXTERNAL_IDS_KEPT)
          this.externalIds.delete(this.externalIds.keys().next().value as string);
        this.externalIds.set(String(user.id), user.externalId);
      }
    const found = new Map<string, string>();
    for (const id of userIds) {
      const externalId = this.externalIds.get(id);
      if (externalId !== undefined) found.set(id, externalId);
    }
    return found;
  }

  /** The external IDs of the call's caller and participants if this instance knows them all, else null. */
  knownExternalIds(call: CallEntity, participants: CallParticipantEntity[]): Map<string, string> | null {
    const found = new Map<string, string>();
    for (const id of [call.callerId, ...participants.map((p) => p.userId)]) {
      const externalId = this.externalIds.get(id);
      if (externalId === undefined) return null;
      found.set(id, externalId);
    }
    return found;
  }

  /** The viewer's own ID of the call's conversation. */
  conversationIdFor(call: CallEntity, viewerId: string, externalIds: Map<string, string>): string {
    if (call.isGroup || viewerId === call.callerId) return call.callerConversationId;
    return directConversationId(externalIds.get(call.callerId) ?? '');
  }

  reply(
    call: CallEntity,
    participants: CallParticipantEntity[],
    externalIds: Map<string, string>,
    viewerId: string,
  ): CallReply {
    return toCallReply(call, participants, {
      externalIds,
      conversationId: this.conversationIdFor(call, viewerId, externalIds),
    });
  }

  /** A call event to every participant (or to those in `to`), with each one's own conversation ID. */
  async emit<T extends CallEventType>(
    manager: EntityManager,
    type: T,
    call: CallEntity,
    participants: CallParticipantEntity[],
    externalIds: Map<string, string>,
    extra: Omit<DurableEventMap[T]['shared'], 'call'>,
    now: number,
    to: CallParticipantEntity[] = participants,
  ): Promise<string> {
    const { conversation_id: _viewerRelative, ...shared } = this.reply(call, participants, externalIds, call.callerId);
    const payload = { call: shared, ...extra } as DurableEventMap[T]['shared'];
    const recipients = to.map((p) => ({
      userId: p.userId,
      private: { conversation_id: this.conversationIdFor(call, p.userId, externalIds) },
    }));
    return this.outbox.append<T>(manager, { type, payload, recipients }, now);
  }

  /** The caller gives up before anyone answered: `call.canceled`, then the call ends as `canceled`. */
  async cancel(manager: EntityManager, context: CallContext, now: number): Promise<string> {
    await this.emit(manager, 'call.canceled', context.call, context.participants, context.externalIds, {}, now);
    return this.end(manager, context, 'canceled', now);
  }

  /**
   * Ends a live call, in the caller's transaction (which holds the call's lock): the state, the
   * end reason and time, the participants still joined marked left, the conversation freed for
   * a new call and the room freed unless someone is still in it; then the summary message (type
   * `call`, sent as the caller, so a missed call counts as unread for the callee) and `call.ended`.
   */
  async end(manager: EntityManager, context: CallContext, reason: CallEndReason, now: number): Promise<string> {
    const { call, participants, externalIds } = context;
    call.state = 'ended';
    call.endReason = reason;
    call.endedAt = now;
    call.ringDeadline = null;
    call.emptySince = null;
    call.liveConversationId = null;
    if (!participants.some((p) => p.inRoom)) call.liveRoomId = null;
    call.updatedAt = now;
    await this.calls.updateCall(manager, call.id, {
      state: 'ended',
      endReason: reason,
      endedAt: now,
      ringDeadline: null,
      emptySince: null,
      liveConversationId: null,
      liveRoomId: call.liveRoomId,
      updatedAt: now,
    });
    for (const p of participants) {
      if (p.state !== 'joined') continue;
      p.state = 'left';
      p.leftAt = now;
      p.updatedAt = now;
      await this.calls.updateParticipant(manager, p.id, { state: 'left', leftAt: now, updatedAt: now });
    }
    if (context.callerView) {
      const sender = { internalId: call.callerId, externalId: externalIds.get(call.callerId) ?? '' };
      const content = { call_id: call.callId, media: call.media, result: reason, duration_ms: durationOf(call) };
      const summary = await this.messaging.appendServerMessage(
        manager,
        context.callerView,
        sender,
        { type: 'call', key: call.callId, content },
        now,
      );
      if (!summary) this.logger.debug(`call ${call.callId}: the caller left the conversation; no summary message`);
    }
    return this.emit(manager, 'call.ended', call, participants, externalIds, { reason }, now);
  }
}
