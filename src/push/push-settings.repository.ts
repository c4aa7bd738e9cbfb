import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { dialectOf } from '../database/sql-dialect';
import { PushSettingsEntity } from './push.entities';

/** Each user's preview level and quiet hours (no row: the defaults). */
@Injectable()
export class PushSettingsRepository {
  constructor(@InjectRepository(PushSettingsEntity) private readonly rows: Repository<PushSettingsEntity>) {}

  find(userId: string): Promise<PushSettingsEntity | null> {
    return this.rows.findOne({ where: { userId } });
  }

  async forUsers(userIds: readonly string[]): Promise<Map<string, PushSettingsEntity>> {
    const out = new Map<string, PushSettingsEntity>();
    // 500 at a time: a group of thousands stays within every driver's parameter limit.
    for (let i = 0; i < userIds.length; i += 500) {
      const chunk = userIds.slice(i, i + 500);
      const rows = (await this.rows.query(
        `SELECT user_id, preview, quiet_start, quiet_end, timezone, updated_at FROM push_settings WHERE user_id IN (${chunk.map(() => '?').join(', ')})`,
        [...chunk],
      )) as Array<Record<string, string | number | null>>;
      for (const row of rows)
        out.set(String(row.user_id), {
          userId: String(row.user_id),
          preview: row.preview === null ? null : String(row.preview),
          quietStart: row.quiet_start === null ? null : Number(row.quiet_start),
          quietEnd: row.quiet_end === null ? null : Number(row.quiet_end),
          timezone: row.timezone === null ? null : String(row.timezone),
          updatedAt: Number(row.updated_at),
        });
    }
    return out;
  }

  /** Replaces the user's settings in one statement (an upsert on the primary key). */
  async save(values: PushSettingsEntity): Promise<void> {
    const params = [
      values.userId,
      values.preview,
      values.quietStart,
      values.quietEnd,
      values.timezone,
      values.updatedAt,
    ];
    const insert =
      'INSERT INTO push_settings (user_id, preview, quiet_start, quiet_end, timezone, updated_at) VALUES (?, ?, ?, ?, ?, ?) ';
    await this.rows.query(
      dialectOf(this.rows.manager).name === 'mysql'
        ? `${insert}ON DUPLICATE KEY UPDATE preview = VALUES(preview), quiet_start = VALUES(quiet_start), quiet_end = VALUES(quiet_end), timezone = VALUES(timezone), updated_at = VALUES(updated_at)`
        : `${insert}ON CONFLICT (user_id) DO UPDATE SET preview = excluded.preview, quiet_start = excluded.quiet_start, quiet_end = excluded.quiet_end, timezone = excluded.timezone, updated_at = excluded.updated_at`,
      params,
    );
  }

  async deleteForUser(userId: string): Promise<void> {
    await this.rows.delete({ userId });
  }
}
