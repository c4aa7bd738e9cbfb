import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { executeCountedAlone } from '../database/execute-counted';
import { pruneBatch } from '../database/prune-batch';
import { RtcRoomEventEntity } from './rtc-room-event.entity';
import { dialectOf } from '../database/sql-dialect';

export type NewRoomEvent = Omit<RtcRoomEventEntity, 'id'>;

@Injectable()
export class RtcRoomEventsRepository {
  constructor(@InjectRepository(RtcRoomEventEntity) private readonly events: Repository<RtcRoomEventEntity>) {}

  /**
   * Stores the event once per body (the unique body hash decides); returns false when that
   * body was already stored. One plain statement: the provider may call this at a high rate.
   */
  async insertOnce(event: NewRoomEvent): Promise<boolean> {
    const columns =
      'body_sha256, sdk_app_id, event_type, room_id, provider_user_id, event_ms, callback_ts, event_info, received_at';
    const values = [
      event.bodySha256,
      event.sdkAppId,
      event.eventType,
      event.roomId,
      event.providerUserId,
      event.eventMs,
      event.callbackTs,
      event.eventInfo,
      event.receivedAt,
    ];
    // Not INSERT IGNORE: that would also turn other errors (truncation) into warnings.
    const sql = `INSERT INTO rtc_room_events (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ${dialectOf(this.events.manager).onConflictDoNothing('body_sha256')}`;
    return (await executeCountedAlone(this.events.manager.connection, sql, values)) > 0;
  }

  /** Forgets an event whose processing failed, so that the provider's retry is processed. */
  async deleteByBodyHash(bodySha256: string): Promise<void> {
    await this.events.delete({ bodySha256 });
  }

  /**
   * Retention: deletes one batch of events received before `cutoff`. A provider retry of a
   * deleted body cannot be stored twice: its CallbackTs would be far outside the 5-minute window.
   */
  deleteOlderThan(cutoff: number, batchSize: number): Promise<number> {
    return pruneBatch(this.events, 'rtc_room_events', 'received_at', cutoff, batchSize);
  }
}
