import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintId, msTime } from '../database/columns';

/** One row per user and UTC day the user was active on (day: Unix ms of the day's midnight). */
@Entity('analytics_user_days')
export class AnalyticsUserDayEntity {
  @PrimaryColumn({ type: 'bigint', transformer: msTime })
  day: number;

  @PrimaryColumn({ name: 'user_id', type: 'bigint', transformer: bigintId })
  userId: string;
}

/** A daily figure: messages by type, calls, DAU/MAU of a finished day. */
@Entity('analytics_daily')
export class AnalyticsDailyEntity {
  @PrimaryColumn({ type: 'bigint', transformer: msTime })
  day: number;

  @PrimaryColumn({ type: 'varchar', length: 32 })
  metric: string;

  @PrimaryColumn({ type: 'varchar', length: 32 })
  dimension: string;

  @Column({ type: 'bigint', transformer: msTime })
  value: number;
}

/** An hourly figure: peak connections, requests and errors. */
@Entity('analytics_hourly')
export class AnalyticsHourlyEntity {
  @PrimaryColumn({ type: 'bigint', transformer: msTime })
  hour: number;

  @PrimaryColumn({ type: 'varchar', length: 32 })
  metric: string;

  @PrimaryColumn({ type: 'varchar', length: 32 })
  dimension: string;

  @Column({ type: 'bigint', transformer: msTime })
  value: number;
}

/**
 * The rollup job's state: row `lease` says which instance runs the job; `messages` (cursor_id),
 * `calls` (cursor_at, cursor_id) and `active_days` (cursor_at: the last day whose DAU/MAU is
 * stored) say how far it got.
 */
@Entity('analytics_jobs')
export class AnalyticsJobEntity {
  @PrimaryColumn({ type: 'varchar', length: 32 })
  name: string;

  @Column({ name: 'cursor_id', type: 'bigint', default: 0, transformer: bigintId })
  cursorId: string;

  @Column({ name: 'cursor_at', type: 'bigint', default: 0, transformer: msTime })
  cursorAt: number;

  @Column({ name: 'lease_owner', type: 'varchar', length: 64, nullable: true })
  leaseOwner: string | null;

  @Column({ name: 'lease_until', type: 'bigint', default: 0, transformer: msTime })
  leaseUntil: number;

  @Column({ name: 'updated_at', type: 'bigint', default: 0, transformer: msTime })
  updatedAt: number;
}
