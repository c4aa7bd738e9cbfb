import { Column, Entity, Index } from 'typeorm';
import { IdColumn, bigintId, msTime } from '../database/columns';

/**
 * The rollup of every client error of one (error code, platform, build), kept up to date in
 * the transaction that stores each report: counters, first and last seen, the most severe
 * severity reported and the latest message (scrubbed). `group_key` is clientErrorGroupKey().
 */
@Entity('client_error_groups')
@Index('IDX_client_error_groups_last_seen', ['lastSeenAt', 'id'])
@Index('IDX_client_error_groups_occurrences', ['occurrenceCount', 'id'])
@Index('IDX_client_error_groups_users', ['userCount', 'id'])
export class ClientErrorGroupEntity {
  @IdColumn()
  id: string;

  @Index('UQ_client_error_groups_key', { unique: true })
  @Column({ name: 'group_key', type: 'varchar', length: 64 })
  groupKey: string;

  @Column({ name: 'error_code', type: 'varchar', length: 128 })
  errorCode: string;

  @Column({ type: 'varchar', length: 16 })
  platform: string;

  /** '' for no build (null and "" reported alike). */
  @Column({ name: 'build_id', type: 'varchar', length: 128, default: '' })
  buildId: string;

  /** SEVERITY_RANKS of the most severe report. */
  @Column({ name: 'severity_rank', type: 'int' })
  severityRank: number;

  @Column({ name: 'occurrence_count', type: 'bigint', transformer: msTime })
  occurrenceCount: number;

  @Column({ name: 'user_count', type: 'int' })
  userCount: number;

  @Column({ name: 'device_count', type: 'int' })
  deviceCount: number;

  @Column({ name: 'first_seen_at', type: 'bigint', transformer: msTime })
  firstSeenAt: number;

  @Column({ name: 'last_seen_at', type: 'bigint', transformer: msTime })
  lastSeenAt: number;

  @Column({ name: 'last_message', type: 'text' })
  lastMessage: string;
}

/** Each user a group has seen once: the distinct count (user_count) is raised by a new row. */
@Entity('client_error_group_users')
@Index('UQ_client_error_group_users', ['groupKey', 'userId'], { unique: true })
@Index('IDX_client_error_group_users_user', ['userId'])
export class ClientErrorGroupUserEntity {
  @IdColumn()
  id: string;

  @Column({ name: 'group_key', type: 'varchar', length: 64 })
  groupKey: string;

  @Column({ name: 'user_id', type: 'bigint', transformer: bigintId })
  userId: string;

  /** Reports counted against this row (an upsert that always changes it tells new rows from old). */
  @Column({ name: 'occurrence_count', type: 'int' })
  occurrenceCount: number;
}

/** Each device a group has seen once, with the user who first reported from it (for erasure). */
@Entity('client_error_group_devices')
@Index('UQ_client_error_group_devices', ['groupKey', 'deviceId'], { unique: true })
@Index('IDX_client_error_group_devices_user', ['userId'])
export class ClientErrorGroupDeviceEntity {
  @IdColumn()
  id: string;

  @Column({ name: 'group_key', type: 'varchar', length: 64 })
  groupKey: string;

  @Column({ name: 'device_id', type: 'varchar', length: 128 })
  deviceId: string;

  @Column({ name: 'user_id', type: 'bigint', transformer: bigintId })
  userId: string;

  /** Reports counted against this row (an upsert that always changes it tells new rows from old). */
  @Column({ name: 'occurrence_count', type: 'int' })
  occurrenceCount: number;
}

/** Occurrences of a group per UTC hour (bucket_start in Unix ms); kept two days. */
@Entity('client_error_group_hours')
@Index('UQ_client_error_group_hours', ['groupKey', 'bucketStart'], { unique: true })
@Index('IDX_client_error_group_hours_start', ['bucketStart'])
export class ClientErrorGroupHourEntity {
  @IdColumn()
  id: string;

  @Column({ name: 'group_key', type: 'varchar', length: 64 })
  groupKey: string;

  @Column({ name: 'bucket_start', type: 'bigint', transformer: msTime })
  bucketStart: number;

  @Column({ name: 'occurrence_count', type: 'int' })
  occurrenceCount: number;
}

/** Occurrences of a group per UTC day (bucket_start in Unix ms); kept 32 days. */
@Entity('client_error_group_days')
@Index('UQ_client_error_group_days', ['groupKey', 'bucketStart'], { unique: true })
@Index('IDX_client_error_group_days_start', ['bucketStart'])
export class ClientErrorGroupDayEntity {
  @IdColumn()
  id: string;

  @Column({ name: 'group_key', type: 'varchar', length: 64 })
  groupKey: string;

  @Column({ name: 'bucket_start', type: 'bigint', transformer: msTime })
  bucketStart: number;

  @Column({ name: 'occurrence_count', type: 'int' })
  occurrenceCount: number;
}

export const CLIENT_ERROR_GROUP_ENTITIES = [
  ClientErrorGroupEntity,
  ClientErrorGroupUserEntity,
  ClientErrorGroupDeviceEntity,
  ClientErrorGroupHourEntity,
  ClientErrorGroupDayEntity,
];
