// Migration 1734320000000 (issue 25): the client error groups' rollups are filled from the
// records stored before it, with the group keys the running service computes, and `down` drops
// them. Runs on a scratch database of the driver under test.
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { DataSource, DataSourceOptions } from 'typeorm';
import { clientErrorGroupKey } from '../../src/client-errors/client-error-group-key';
import { parseDatabaseUrl } from '../../src/config/app-config';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { MIGRATIONS } from '../../src/database/migrations';

type Row = Record<string, string | number | null>;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function scratchOptions(): Promise<{ options: DataSourceOptions; cleanup: () => Promise<void> }> {
  const url = process.env.E2E_DATABASE_URL;
  const database = url && !url.startsWith('sqlite') ? parseDatabaseUrl(url) : null;
  if (database && database.type === 'mysql') {
    const name = `mig_ceg_${process.pid}_${Date.now().toString(36)}`;
    const admin = await createConnection({
      host: database.host,
      port: database.port,
      user: database.username,
      password: database.password,
    });
    await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    return {
      options: buildDataSourceOptions({ ...database, database: name }),
      cleanup: async () => {
        await admin.query(`DROP DATABASE \`${name}\``);
        await admin.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'im-mig-'));
  return {
    options: buildDataSourceOptions({ type: 'sqlite', path: join(dir, 'm.sqlite') }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

describe('migration 1734320000000 (client error groups)', () => {
  it('fills the groups, their users, devices and trend buckets from the stored records, and drops them on down', async () => {
    const index = MIGRATIONS.findIndex((m) => m.name === 'ClientErrorGroups1734320000000');
    expect(index).toBeGreaterThan(0);
    const scratch = await scratchOptions();
    const now = Date.now();
    let source = new DataSource({ ...scratch.options, migrations: MIGRATIONS.slice(0, index) } as DataSourceOptions);
    try {
      await source.initialize();
      await source.runMigrations();
      const insert = (
        user: number,
        device: string,
        code: string,
        platform: string,
        build: string | null,
        severity: string,
        count: number,
        at: number,
        message: string,
      ) =>
        source.query(
          "INSERT INTO client_errors (event_id, merge_key, user_id, username, device_id, platform, severity, error_code, message, stack_trace, operation, build_id, conversation_id, message_id, trace_id, recovered, context, occurrence_count, first_seen_at, last_seen_at) VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?, NULL, 'sync', ?, NULL, NULL, NULL, 0, '{}', ?, ?, ?)",
          [
            `00000000-0000-4000-8000-${String(at).slice(-12).padStart(12, '0')}`,
            `${code}-${user}-${device}-${at}`.padEnd(64, '0').slice(0, 64),
            user,
            device,
            platform,
            severity,
            code,
            message,
            build,
            count,
            at,
            at + 1000,
          ],
        );
      await insert(1, 'd1', 'net.timeout', 'ios', null, 'normal', 3, now - 2 * HOUR, 'older');
      await insert(2, 'd2', 'net.timeout', 'ios', '', 'fatal', 1, now - 60_000, 'latest');
      await insert(1, 'd1', 'net.timeout', 'ios', null, 'normal', 2, now - 3 * DAY, 'oldest');
      await insert(1, 'd3', 'db.locked', 'android', '7.0', 'serious', 5, now - 40 * DAY, 'long ago');
      await source.destroy();

      source = new DataSource({ ...scratch.options, migrations: MIGRATIONS.slice(0, index + 1) } as DataSourceOptions);
      await source.initialize();
      await source.runMigrations();
      const q = (sql: string, params: unknown[] = []) => source.query(sql, params) as Promise<Row[]>;
      const groups = await q('SELECT * FROM client_error_groups ORDER BY error_code');
      expect(groups).toHaveLength(2);
      const [locked, timeout] = groups;
      // The keys the service computes for its reports: new reports count into these rows.
      expect(timeout.group_key).toBe(clientErrorGroupKey('net.timeout', 'ios', null));
      expect(locked.group_key).toBe(clientErrorGroupKey('db.locked', 'android', '7.0'));
      expect({
        build: timeout.build_id,
        severity: Number(timeout.severity_rank),
        occurrences: Number(timeout.occurrence_count),
        users: Number(timeout.user_count),
        devices: Number(timeout.device_count),
        first: Number(timeout.first_seen_at),
        last: Number(timeout.last_seen_at),
        message: timeout.last_message,
      }).toEqual({
        build: '',
        severity: 3,
        occurrences: 6,
        users: 2,
        devices: 2,
        first: now - 3 * DAY,
        last: now - 60_000 + 1000,
        message: 'latest',
      });
      expect(Number(locked.occurrence_count)).toBe(5);
      const sum = async (table: string, key: unknown) =>
        Number(
          (await q(`SELECT COALESCE(SUM(occurrence_count), 0) AS n FROM ${table} WHERE group_key = ?`, [key]))[0].n,
        );
      expect(await sum('client_error_group_users', timeout.group_key)).toBe(6);
      expect(await sum('client_error_group_devices', timeout.group_key)).toBe(6);
      // Only the last 48 hours and 32 days are filled: the charts show 24 hours and 30 days.
      expect(await sum('client_error_group_hours', timeout.group_key)).toBe(4);
      expect(await sum('client_error_group_days', timeout.group_key)).toBe(6);
      expect(await sum('client_error_group_days', locked.group_key)).toBe(0);

      await source.undoLastMigration();
      const tables = await source.createQueryRunner().getTables(['client_error_groups', 'client_error_group_users']);
      expect(tables).toEqual([]);
    } finally {
      if (source.isInitialized) await source.destroy();
      await scratch.cleanup();
    }
  });
});
