import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { executeCountedAlone } from '../database/execute-counted';
import { pruneBatch } from '../database/prune-batch';
import { RtcRoomEventEntity } from './rtc-room-event.entity';
import { dialectOf } from '../database/sql-dialect';
import type { StoredRoomEvent } from './room-callback';

export type NewRoomEvent = Omit<RtcRoomEventEntity, 'id' | 'appliedAt'>;

interface PreparingPool {
  execute(sql: string, params: unknown[], callback: (error: Error | null, result: unknown) => void): void;
}

interface PendingRow {
  id: string | number;
  event_type: string | number;
  room_id: string;
  provider_user_id: string | null;
  event_ms: string | number;
  callback_ts: string | number;
  event_info: string;
}

const INSERT_COLUMNS =
  'body_sha256, sdk_app_id, event_type, room_id, provider_user_id, event_ms, callback_ts, event_info, received_at';

@Injectable()
export class RtcRoomEventsRepository {
  constructor(@InjectRepository(RtcRoomEventEntity) private readonly events: Repository<RtcRoomEventEntity>) {}

  /**
   * Stores the event once per body (the unique body hash decides), still to be applied; answers
   * its row ID, or null when that body was already stored. One statement, kept prepared on
   * MySQL: the provider may call this at a high rate.
   */
  async insertOnce(event: NewRoomEvent): Promise<string | null> {
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
    const dialect = dialectOf(this.events.manager);
    // Not INSERT IGNORE: that would also turn other errors (truncation) into warnings.
    const sql = `INSERT INTO rtc_room_events (${INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ${dialect.onConflictDoNothing('body_sha256')}`;
    if (dialect.name !== 'mysql') {
      const rows = (await this.events.query(`${sql} RETURNING id`, values)) as Array<{ id: string | number }>;
      return rows[0] ? String(rows[0].id) : null;
    }
    // A duplicate changes no row (affectedRows 0); a new row reports its ID.
    const pool = (this.events.manager.connection.driver as unknown as { pool: PreparingPool }).pool;
    const header = await new Promise<{ affectedRows: number; insertId: number | string }>((resolve, reject) =>
      pool.execute(sql, values, (error, result) =>
        error ? reject(error) : resolve(result as { affectedRows: number; insertId: number | string }),
      ),
    );
    return header.affectedRows > 0 ? String(header.insertId) : null;
  }

  /**
   * Events not yet applied, oldest first: those received at `receivedBefore` or before, and
   * every one of the rooms in `rooms` (whose newer events wait for them).
   */
  async pending(receivedBefore: number, rooms: readonly string[], limit: number): Promise<StoredRoomEvent[]> {
    const roomClause = rooms.length ? ` OR room_id IN (${rooms.map(() => '?').join(', ')})` : '';
    const rows = (await this.events.query(
      `SELECT id, event_type, room_id, provider_user_id, event_ms, callback_ts, event_info FROM rtc_room_events WHERE applied_at IS NULL AND (received_at <= ?${roomClause}) ORDER BY id LIMIT ?`,
      [receivedBefore, ...rooms, limit],
    )) as PendingRow[];
    return rows.map((row) => {
      const info = JSON.parse(row.event_info) as Record<string, unknown>;
      return {
        id: String(row.id),
        eventType: Number(row.event_type),
        roomId: row.room_id,
        providerUserId: row.provider_user_id,
        eventMs: Number(row.event_ms),
        secondsOnly: info.EventMsTs === undefined,
        callbackTs: Number(row.callback_ts),
        eventInfo: row.event_info,
      };
    });
  }

  /** Marks events applied (one statement for a batch). */
  async markApplied(ids: readonly string[], now: number): Promise<void> {
    if (ids.length === 0) return;
    await executeCountedAlone(
      this.events.manager.connection,
      `UPDATE rtc_room_events SET applied_at = ? WHERE id IN (${ids.map(() => '?').join(', ')}) AND applied_at IS NULL`,
      [now, ...ids],
    );
  }

  /**
   * Retention: deletes one batch of events received before `cutoff`. A provider retry of a
   * deleted body cannot be stored twice: its CallbackTs would be far outside the 5-minute window.
   */
  deleteOlderThan(cutoff: number, batchSize: number): Promise<number> {
    return pruneBatch(this.events, 'rtc_room_events', 'received_at', cutoff, batchSize);
  }
}
