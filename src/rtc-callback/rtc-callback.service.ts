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
   * Stores a verified room event (102/103/104) once and hands it to the calls (RoomEventsFeed);
   * a provider retry of the same body is acknowledged without being processed again, and other
   * events are acknowledged and ignored.
   * Content that cannot be stored (see parseRoomCallback) is refused with 403 `{"code":1}`
   * rather than acknowledged and dropped: the provider stops retrying after a minute, and an
   * acknowledged event that was never stored would be lost without a trace.
   */
  async handle(callback: VerifiedCallback): Promise<ProviderReply> {
    const event = parseRoomCallback(callback.body, callback.callbackTs, callback.inexactNumbers);
    if (!event) return { code: 0 };
    const bodySha256 = createHash('sha256').update(callback.raw).digest('hex');
    const stored = await this.events.insertOnce({
      bodySha256,
      sdkAppId: this.settings.current.rtc.sdkAppId,
      eventType: event.eventType,
      roomId: event.roomId,
      providerUserId: event.providerUserId,
      eventMs: event.eventMs,
      callbackTs: event.callbackTs,
      eventInfo: event.eventInfo,
      receivedAt: this.clock.now(),
    });
    if (!stored) return { code: 0 };
    try {
      await this.feed.publish(event);
    } catch (error) {
      // Not acknowledged: the provider retries, and the retry must not count as a duplicate.
      await this.events.deleteByBodyHash(bodySha256).catch(() => undefined);
      throw error;
    }
    return { code: 0 };
  }
}
