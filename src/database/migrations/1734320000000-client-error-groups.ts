import { createHash } from 'node:crypto';
import { MigrationInterface, QueryRunner, Table, TableColumnOptions, TableIndex, TableIndexOptions } from 'typeorm';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** clientErrorGroupKey() as of this migration (kept here: a migration never changes with the code). */
function groupKey(errorCode: string, platform: string, build: string): string {
  return createHash('sha256')
    .update(JSON.stringify([errorCode, platform, build]))
    .digest('hex');
}

type Row = Record<string, string | number | null>;

/**
 * Client errors grouped by (error code, platform, build) for the console: one rollup row per
 * group with its counters, the distinct users and devices it has seen, and its occurrences per
 * hour and per day; an index on client_errors for a group's occurrences, newest first. `up`
 * fills the rollups from the stored records (the trend tables with the last 2 days and 32
 * days only). `down` drops the tables and the index.
 */
export class ClientErrorGroups1734320000000 implements MigrationInterface {
  name = 'ClientErrorGroups1734320000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    const id = (): TableColumnOptions => ({
      name: 'id',
      type: mysql ? 'bigint' : 'integer',
      isPrimary: true,
      isGenerated: true,
      generationStrategy: 'increment',
    });
    const col = (name: string, type: string, extra: Partial<TableColumnOptions> = {}): TableColumnOptions => ({
      name,
      type,
      ...extra,
    });
    const key = col('group_key', 'varchar', { length: '64' });
    const create = async (name: string, columns: TableColumnOptions[], indices: TableIndexOptions[]): Promise<void> => {
      await queryRunner.createTable(new Table({ name, columns, indices, ...(mysql ? { engine: 'InnoDB' } : {}) }));
      if (mysql)
        await queryRunner.query(`ALTER TABLE \`${name}\` CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    };
    await create(
      'client_error_groups',
      [
        id(),
        key,
        col('error_code', 'varchar', { length: '128' }),
        col('platform', 'varchar', { length: '16' }),
        col('build_id', 'varchar', { length: '128', default: "''" }),
        col('severity_rank', 'int'),
        col('occurrence_count', 'bigint'),
        col('user_count', 'int'),
        col('device_count', 'int'),
        col('first_seen_at', 'bigint'),
        col('last_seen_at', 'bigint'),
        col('last_message', 'text'),
      ],
      [
        { name: 'UQ_client_error_groups_key', columnNames: ['group_key'], isUnique: true },
        { name: 'IDX_client_error_groups_last_seen', columnNames: ['last_seen_at', 'id'] },
        { name: 'IDX_client_error_groups_occurrences', columnNames: ['occurrence_count', 'id'] },
        { name: 'IDX_client_error_groups_users', columnNames: ['user_count', 'id'] },
      ],
    );
    await create(
      'client_error_group_users',
      [id(), key, col('user_id', 'bigint'), col('occurrence_count', 'int')],
      [
        { name: 'UQ_client_error_group_users', columnNames: ['group_key', 'user_id'], isUnique: true },
        { name: 'IDX_client_error_group_users_user', columnNames: ['user_id'] },
      ],
    );
    await create(
      'client_error_group_devices',
      [
        id(),
        key,
        col('device_id', 'varchar', { length: '128' }),
        col('user_id', 'bigint'),
        col('occurrence_count', 'int'),
      ],
      [
        { name: 'UQ_client_error_group_devices', columnNames: ['group_key', 'device_id'], isUnique: true },
        { name: 'IDX_client_error_group_devices_user', columnNames: ['user_id'] },
      ],
    );
    for (const [table, unit] of [
      ['client_error_group_hours', 'hours'],
      ['client_error_group_days', 'days'],
    ]) {
      await create(
        table,
        [id(), key, col('bucket_start', 'bigint'), col('occurrence_count', 'int')],
        [
          { name: `UQ_client_error_group_${unit}`, columnNames: ['group_key', 'bucket_start'], isUnique: true },
          { name: `IDX_client_error_group_${unit}_start`, columnNames: ['bucket_start'] },
        ],
      );
    }
    await queryRunner.createIndex(
      'client_errors',
      new TableIndex({
        name: 'IDX_client_errors_group',
        columnNames: ['error_code', 'platform', 'build_id', 'last_seen_at', 'id'],
      }),
    );
    await this.backfill(queryRunner);
  }

  /** One pass per group over its records (by the new index); there are few groups. */
  private async backfill(queryRunner: QueryRunner): Promise<void> {
    const q = (sql: string, params: unknown[] = []): Promise<Row[]> => queryRunner.query(sql, params) as Promise<Row[]>;
    const now = Date.now();
    const hoursFrom = now - (now % HOUR) - 47 * HOUR;
    const daysFrom = now - (now % DAY) - 31 * DAY;
    const groups = await q(
      "SELECT error_code, platform, COALESCE(build_id, '') AS build, SUM(occurrence_count) AS occurrences, COUNT(DISTINCT user_id) AS users, COUNT(DISTINCT device_id) AS devices, MIN(first_seen_at) AS first_seen, MAX(last_seen_at) AS last_seen, MAX(CASE severity WHEN 'fatal' THEN 3 WHEN 'serious' THEN 2 ELSE 1 END) AS severity_rank FROM client_errors GROUP BY error_code, platform, COALESCE(build_id, '')",
    );
    for (const g of groups) {
      const k = groupKey(String(g.error_code), String(g.platform), String(g.build));
      const where = "error_code = ? AND platform = ? AND COALESCE(build_id, '') = ?";
      const args = [g.error_code, g.platform, g.build];
      const latest = await q(
        `SELECT message FROM client_errors WHERE ${where} ORDER BY last_seen_at DESC, id DESC LIMIT 1`,
        args,
      );
      await q(
        'INSERT INTO client_error_groups (group_key, error_code, platform, build_id, severity_rank, occurrence_count, user_count, device_count, first_seen_at, last_seen_at, last_message) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [
          k,
          g.error_code,
          g.platform,
          g.build,
          Number(g.severity_rank),
          Number(g.occurrences),
          Number(g.users),
          Number(g.devices),
          Number(g.first_seen),
          Number(g.last_seen),
          latest[0]?.message ?? '',
        ],
      );
      await q(
        `INSERT INTO client_error_group_users (group_key, user_id, occurrence_count) SELECT ?, user_id, SUM(occurrence_count) FROM client_errors WHERE ${where} GROUP BY user_id`,
        [k, ...args],
      );
      await q(
        `INSERT INTO client_error_group_devices (group_key, device_id, user_id, occurrence_count) SELECT ?, device_id, MIN(user_id), SUM(occurrence_count) FROM client_errors WHERE ${where} GROUP BY device_id`,
        [k, ...args],
      );
      // A record's occurrences are counted at the hour (day) of its first one, as the dashboard counts them.
      for (const [table, size, from] of [
        ['client_error_group_hours', HOUR, hoursFrom],
        ['client_error_group_days', DAY, daysFrom],
      ] as const) {
        await q(
          `INSERT INTO ${table} (group_key, bucket_start, occurrence_count) SELECT ?, first_seen_at - (first_seen_at % ${size}) AS b, SUM(occurrence_count) FROM client_errors WHERE ${where} AND first_seen_at >= ? GROUP BY first_seen_at - (first_seen_at % ${size})`,
          [k, ...args, from],
        );
      }
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('client_errors', 'IDX_client_errors_group');
    for (const table of [
      'client_error_group_days',
      'client_error_group_hours',
      'client_error_group_devices',
      'client_error_group_users',
      'client_error_groups',
    ])
      await queryRunner.dropTable(table);
  }
}
