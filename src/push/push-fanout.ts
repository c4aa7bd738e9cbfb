import { Inject, Injectable, Logger } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable } from '../database/db-errors';
import type { PushPreviewLevel } from '../contract/push';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ConversationDescriber } from '../conversation-views/conversation-describer.service';
import { HomeListService } from '../conversation-views/home-list.service';
import { ConversationStore } from '../conversations/conversation-store.service';
import type { SequencedEvent, SequencedEventOf } from '../outbox/deliverable-event';
import { PresenceService } from '../realtime/presence.service';
import { UsersService } from '../users/users.service';
import { PushSubject, composeNotification } from './push-composer';
import type { QueuedNotification } from './push-deliveries.repository';
import { PushProviders } from './push-providers';
import { PushRegistrationsRepository } from './push-registrations.repository';
import { PushSettingsRepository } from './push-settings.repository';
import type { PushRegistrationEntity, PushSettingsEntity } from './push.entities';
import { inQuietHours } from './quiet-hours';

/** The event types that notify, and what each is to push. */
export const PUSHED_TYPES = ['message.new', 'call.invited', 'friend.request_created', 'group.members_added'] as const;
type PushedType = (typeof PUSHED_TYPES)[number];

/** Who an event would notify, before presence, settings and registrations decide. */
interface Candidate {
  userId: string;
  subject: PushSubject;
  /** Message events: the conversation row, whose mute decides. */
  conversationRowId: string | null;
}

function isPushed(event: SequencedEvent): event is SequencedEventOf<PushedType> & SequencedEvent {
  return (PUSHED_TYPES as readonly string[]).includes(event.type);
}

/** Why a candidate got no notification (metrics). */
export type SkipReason = 'online' | 'muted' | 'quiet_hours' | 'no_device' | 'stale';

/**
 * Turns a batch of sequenced events into the notifications to queue: one per registered device
 * of each recipient who is offline on every instance, has not muted the conversation and is
 * not in quiet hours. The sender of a message, the caller and whoever made a change are never
 * notified of their own act.
 */
@Injectable()
export class PushFanout {
  private readonly logger = new Logger('Push');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly registrations: PushRegistrationsRepository,
    private readonly settings: PushSettingsRepository,
    private readonly users: UsersService,
    private readonly presence: PresenceService,
    private readonly conversations: ConversationStore,
    private readonly describer: ConversationDescriber,
    private readonly homeList: HomeListService,
    private readonly providers: PushProviders,
  ) {}

  async notificationsFor(
    events: readonly SequencedEvent[],
    now: number,
    skipped: (reason: SkipReason, count: number) => void,
  ): Promise<QueuedNotification[]> {
    const pushed = events.filter(isPushed).filter((event) => event.createdAt + this.config.push.retryMs > now);
    if (pushed.length === 0) return [];
    // Only users with a device are worth reading anything else for: most events stop here.
    const recipientIds = [...new Set(pushed.flatMap((event) => event.recipients.map((r) => r.userId)))];
    const devices = await inChunks(recipientIds, (ids) => this.registrations.forUsers(ids));
    if (devices.length === 0) return [];
    const byUser = new Map<string, PushRegistrationEntity[]>();
    for (const device of devices) byUser.set(device.userId, [...(byUser.get(device.userId) ?? []), device]);
    const withDevices = [...byUser.keys()];
    const [online, authStates, settings, users] = await Promise.all([
      this.presence.onlineAmong(withDevices),
      this.users.findAuthStates(withDevices),
      this.settings.forUsers(withDevices),
      inChunks(withDevices, (ids) => this.users.findByIds(ids)),
    ]);
    const externalOf = new Map(users.map((user) => [user.id, user.externalId]));
    const candidates: Candidate[] = [];
    for (const event of pushed) {
      const listening = event.recipients.filter((r) => byUser.has(r.userId));
      if (listening.length === 0) continue;
      try {
        candidates.push(...(await this.candidatesOf(event, listening, externalOf)));
      } catch (error) {
        // The database failing is the step's to retry; an event that cannot be read at all must
        // not stop every later notification behind it.
        if (error instanceof QueryFailedError || isDatabaseUnavailable(error)) throw error;
        this.logger.warn(`push: event ${event.eventId} (${event.type}) skipped: ${(error as Error).message}`);
      }
    }
    const out: QueuedNotification[] = [];
    const badges = new Map<string, number>();
    const cleaned = new Set<string>();
    const mutedBy = await this.mutedBy(candidates);
    for (const candidate of candidates) {
      const state = authStates.get(candidate.userId);
      const userDevices = byUser.get(candidate.userId) ?? [];
      if (!state || this.users.isDisabled(state)) {
        skipped('stale', 1);
        continue;
      }
      // Registrations made before the user's tokens were revoked are dropped, not used.
      const live = userDevices.filter((device) => device.tokenVersion >= state.tokenVersion);
      if (live.length < userDevices.length && !cleaned.has(candidate.userId)) {
        cleaned.add(candidate.userId);
        await this.registrations.deleteStale(candidate.userId, state.tokenVersion);
      }
      if (online.has(candidate.userId)) {
        skipped('online', 1);
        continue;
      }
      if (candidate.conversationRowId && mutedBy.get(candidate.conversationRowId)?.has(candidate.userId)) {
        skipped('muted', 1);
        continue;
      }
      const userSettings = settings.get(candidate.userId) ?? null;
      if (quietNow(userSettings, now)) {
        skipped('quiet_hours', 1);
        continue;
      }
      // A provider no instance here is configured for any more: nothing would ever send it.
      const targets = targetsOf(
        live.filter((device) => this.providers.forProvider(device.provider) !== null),
        candidate.subject.kind === 'call',
      );
      if (targets.length === 0) {
        skipped('no_device', 1);
        continue;
      }
      let badge = badges.get(candidate.userId);
      if (badge === undefined) {
        badge = (await this.homeList.unreadTotals(candidate.userId)).unmuted;
        badges.set(candidate.userId, badge);
      }
      const preview = previewOf(userSettings, this.config.push.previewDefault);
      const createdAt = eventTime(pushed, candidate.subject.eventId);
      for (const device of targets) {
        const notification = composeNotification(
          candidate.subject,
          { preview, badge, locale: device.locale },
          {
            createdAt,
            messageTtlSeconds: this.config.push.messageTtlSeconds,
            callTtlSeconds: this.config.push.callTtlSeconds,
          },
        );
        out.push({
          eventId: candidate.subject.eventId,
          registrationId: device.id,
          userId: candidate.userId,
          provider: device.provider,
          kind: candidate.subject.kind,
          payload: JSON.stringify(notification),
          // The event's time: a record's age and the delay metric count from what happened.
          createdAt,
          deadlineAt: Math.min(createdAt + this.config.push.retryMs, notification.expiresAt),
        });
      }
    }
    return out;
  }

  /** The candidates of one event among the recipients who have a device. */
  private async candidatesOf(
    event: SequencedEventOf<PushedType> & SequencedEvent,
    listening: ReadonlyArray<{ userId: string; private: unknown }>,
    externalOf: ReadonlyMap<string, string>,
  ): Promise<Candidate[]> {
    switch (event.type) {
      case 'message.new': {
        const message = event.payload.message;
        const rowId = event.conversationRowId ?? null;
        const [sender] = message.sender_id ? await this.users.findByExternalIds([message.sender_id]) : [];
        const groupName = event.payload.conversation_id !== undefined ? await this.groupName(rowId) : null;
        return listening
          .filter((r) => externalOf.get(r.userId) !== message.sender_id)
          .map((r) => ({
            userId: r.userId,
            conversationRowId: rowId,
            subject: {
              kind: 'message',
              eventId: event.eventId,
              conversationId:
                (r.private as { conversation_id?: string } | null)?.conversation_id ??
                event.payload.conversation_id ??
                message.conversation_id ??
                '',
              groupName,
              senderId: message.sender_id,
              senderName: sender?.nickname ?? (message.sender_id || 'System'),
              messageId: message.mid,
              seq: message.conversation_seq,
              messageType: message.type,
              content: message.content,
            },
          }));
      }
      case 'call.invited': {
        const call = event.payload.call;
        const [caller] = await this.users.findByExternalIds([call.caller_user_id]);
        return listening
          .filter((r) => externalOf.get(r.userId) !== call.caller_user_id)
          .map((r) => ({
            userId: r.userId,
            conversationRowId: null,
            subject: {
              kind: 'call',
              eventId: event.eventId,
              conversationId: (r.private as { conversation_id?: string } | null)?.conversation_id ?? '',
              groupName: null,
              callId: call.call_id,
              media: call.media,
              callerId: call.caller_user_id,
              callerName: caller?.nickname ?? call.caller_user_id,
            },
          }));
      }
      case 'friend.request_created': {
        const request = event.payload.request;
        return listening
          .filter((r) => r.userId !== request.from.id)
          .map((r) => ({
            userId: r.userId,
            conversationRowId: null,
            subject: {
              kind: 'friend_request',
              eventId: event.eventId,
              requestId: request.id,
              fromId: request.from.user_id,
              fromName: request.from.nickname,
              greeting: request.message,
            },
          }));
      }
      case 'group.members_added': {
        const added = new Set(event.payload.user_ids);
        const [inviter] = await this.users.findByExternalIds([event.payload.operator_user_id]);
        return listening
          .filter((r) => {
            const external = externalOf.get(r.userId);
            return external !== undefined && added.has(external) && external !== event.payload.operator_user_id;
          })
          .map((r) => ({
            userId: r.userId,
            conversationRowId: null,
            subject: {
              kind: 'group_invitation',
              eventId: event.eventId,
              groupId: event.payload.group_id,
              conversationId: event.payload.conversation_id,
              groupName: event.payload.group.name,
              inviterId: event.payload.operator_user_id,
              inviterName: inviter?.nickname ?? event.payload.operator_user_id,
            },
          }));
      }
    }
    return [];
  }

  private async groupName(conversationRowId: string | null): Promise<string | null> {
    if (conversationRowId === null) return null;
    const conversation = await this.conversations.findById(conversationRowId);
    if (!conversation || conversation.type !== 'group') return null;
    return (await this.describer.describe('0', [conversation])).get(conversation.id)?.title ?? null;
  }

  /** Per message conversation, the candidates who muted it: one query per conversation of the batch. */
  private async mutedBy(candidates: readonly Candidate[]): Promise<Map<string, Set<string>>> {
    const byConversation = new Map<string, string[]>();
    for (const c of candidates)
      if (c.conversationRowId)
        byConversation.set(c.conversationRowId, [...(byConversation.get(c.conversationRowId) ?? []), c.userId]);
    const out = new Map<string, Set<string>>();
    for (const [conversationId, userIds] of byConversation) {
      const muted = await inChunks([...new Set(userIds)], async (ids) => [
        ...(await this.conversations.mutedAmong(conversationId, ids)),
      ]);
      out.set(conversationId, new Set(muted));
    }
    return out;
  }
}

/** IN lists of at most this many: a group of thousands stays within every driver's parameter limit. */
const IN_CHUNK = 500;

async function inChunks<T>(ids: readonly string[], read: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += IN_CHUNK) out.push(...(await read(ids.slice(i, i + IN_CHUNK))));
  return out;
}

function eventTime(events: readonly SequencedEvent[], eventId: string): number {
  return events.find((event) => event.eventId === eventId)?.createdAt ?? 0;
}

export function previewOf(settings: PushSettingsEntity | null, fallback: PushPreviewLevel): PushPreviewLevel {
  const level = settings?.preview;
  return level === 'full' || level === 'sender' || level === 'none' ? level : fallback;
}

function quietNow(settings: PushSettingsEntity | null, now: number): boolean {
  if (!settings || settings.quietStart === null || settings.quietEnd === null || !settings.timezone) return false;
  return inQuietHours({ start: settings.quietStart, end: settings.quietEnd, timezone: settings.timezone }, now);
}

/**
 * Which provider a device that registered several is reached through: its platform's own
 * service first (on Huawei and Xiaomi phones FCM may not get through), FCM last.
 */
const PROVIDER_ORDER = ['apns', 'huawei', 'xiaomi', 'fcm'];

/**
 * The registrations a notification goes to: one per device, so that a device registered with
 * two providers does not show everything twice. A call rings through a device's VoIP token
 * where it has one (PushKit wakes the app to report the call) and its ordinary token
 * otherwise; anything else never goes to a VoIP token (iOS ends apps that get a VoIP push and
 * report no call).
 */
export function targetsOf(devices: readonly PushRegistrationEntity[], call: boolean): PushRegistrationEntity[] {
  const byDevice = new Map<string, PushRegistrationEntity>();
  const rank = (device: PushRegistrationEntity): number =>
    device.provider === 'apns_voip' ? (call ? -1 : Infinity) : PROVIDER_ORDER.indexOf(device.provider);
  for (const device of devices) {
    if (rank(device) === Infinity) continue;
    const chosen = byDevice.get(device.deviceId);
    if (!chosen || rank(device) < rank(chosen)) byDevice.set(device.deviceId, device);
  }
  return devices.filter((device) => byDevice.get(device.deviceId) === device);
}
