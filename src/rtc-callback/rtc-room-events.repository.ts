import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { isUniqueViolation } from '../database/db-errors';
import { insertRow } from '../database/insert-row';
import { RtcRoomEventEntity } from './rtc-room-event.entity';

export type NewRoomEvent = Omit<RtcRoomEventEntity, 'id'>;

@Injectable()
export class RtcRoomEventsRepository {
  constructor(@InjectRepository(RtcRoomEventEntity) private readonly events: Repository<RtcRoomEventEntity>) {}

  /** Stores the event once per body; returns false when that body was already stored. */
  async insertOnce(event: NewRoomEvent): Promise<boolean> {
    try {
      await insertRow(this.events.manager, RtcRoomEventEntity, event);
      return true;
    } catch (error) {
      if (isUniqueViolation(error, 'body_sha256')) return false;
      throw error;
    }
  }

  countByRoom(roomId: string): Promise<number> {
    return this.events.countBy({ roomId });
  }
}
