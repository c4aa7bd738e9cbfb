import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { Clock } from '../common/clock';
import { VerifiedCallback } from './callback-signature.guard';
import { parseRoomCallback } from './room-callback';
import { RoomEventsFeed } from './room-events-feed';
import { ProviderReply } from './rtc-callback.reply';
import { RtcRoomEventsRepository } from './rtc-room-events.repository';
import { RuntimeSettingsService } from '../settings/runtime-settings.service';

@Injectable()
export class RtcCallbackService {
  constructor(
    private readonly settings: RuntimeSettingsService,
    private readonly events: RtcRoomEventsRepository,
    private readonly feed: RoomEventsFeed,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /**
   * Stores a verified room event (102/103/104) once and answers; the calls apply it after the
   * answer (RoomEventsFeed), in the order stored per room, and a stored event not yet applied is
   * applied by a background pass, so an acknowledged event is never lost. A provider retry of
   * the same body is acknowledged without being stored again, and other events are acknowledged
   * and ignored.
   * Content that cannot be stored (see parseRoomCallback) is refused with 403 `{"code":1}`
   * rather than acknowledged and dropped: the provider stops retrying after a minute, and an
   * acknowledged event that was never stored would be lost without a trace.
   */
  async handle(callback: VerifiedCallback): Promise<ProviderReply> {
    const event = parseRoomCallback(callback.body, callback.callbackTs, callback.inexactNumbers);
    if (!event) return { code: 0 };
    const id = await this.events.insertOnce({
      bodySha256: createHash('sha256').update(callback.raw).digest('hex'),
      sdkAppId: this.settings.current.rtc.sdkAppId,
      eventType: event.eventType,
      roomId: event.roomId,
      providerUserId: event.providerUserId,
      eventMs: event.eventMs,
      callbackTs: event.callbackTs,
      eventInfo: event.eventInfo,
      receivedAt: this.clock.now(),
    });
    if (id !== null) await this.feed.publish({ ...event, id });
    return { code: 0 };
  }

  /** Retention: one batch of events received before `cutoff` (applied or not); answers how many went. */
  pruneEventsBefore(cutoff: number, batchSize: number): Promise<number> {
    return this.events.deleteOlderThan(cutoff, batchSize);
  }
}
