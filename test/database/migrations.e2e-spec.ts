// The group read-side migration converts stored state both ways: data written under the
// messaging-core schema (per-member unread, activity, hidden; recipient rows) must read the
// same after `up`, and `down` must give the old columns back. Runs on a scratch database of
// the driver under test (a temp SQLite file, or a fresh MySQL database next to the e2e one).
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { DataSource, DataSourceOptions } from 'typeorm';
import { parseDatabaseUrl } from '../../src/config/app-config';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { MIGRATIONS } from '../../src/database/migrations';

type Row = Record<string, string | number | null>;

async function scratchOptions(): Promise<{ options: DataSourceOptions; cleanup: () => Promise<void> }> {
  const url = process.env.E2E_DATABASE_URL;
  const database = url && !url.startsWith('sqlite') ? parseDatabaseUrl(url) : null;
  if (database && database.type === 'mysql') {
    const name = `mig_${process.pid}_${Date.now().toString(36)}`;
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

type Query = (sql: string, params?: unknown[]) => Promise<Row[]>;

/** A scratch database at the schema of the first `count` migrations, filled by `fill`. */
async function schemaBefore(
  count: number,
  fill: (q: Query) => Promise<void>,
): Promise<{ options: DataSourceOptions; cleanup: () => Promise<void> }> {
  const scratch = await scratchOptions();
  const source = new DataSource({ ...scratch.options, migrations: MIGRATIONS.slice(0, count) } as DataSourceOptions);
  await source.initialize();
  try {
    await source.runMigrations();
    await fill((sql, params = []) => source.query(sql, params));
  } finally {
    await source.destroy();
  }
  return scratch;
}

async function insertUsers(q: Query, ids: number[]): Promise<void> {
  for (const id of ids) {
    await q(
      "INSERT INTO users (id, external_id, nickname, avatar, signature, profile_updated_at, token_version, disabled, created_at, updated_at) VALUES (?, ?, ?, '', '', 0, 0, 0, 0, 0)",
      [id, `u${id}`, `u${id}`],
    );
  }
}

describe('migration 1732400000000 (group state derived on read)', () => {
  it('keeps unread, activity, hidden and event delivery across up and down', async () => {
    const { options, cleanup } = await scratchOptions();
    const before = new DataSource({ ...options, migrations: MIGRATIONS.slice(0, 2) } as DataSourceOptions);
    await before.initialize();
    try {
      await before.runMigrations();
      const q = (sql: string, params: unknown[] = []): Promise<Row[]> => before.query(sql, params);
      for (const [id, ext] of [
        [1, 'a'],
        [2, 'b'],
        [3, 'c'],
      ] as const) {
        await q(
          "INSERT INTO users (id, external_id, nickname, avatar, signature, profile_updated_at, token_version, disabled, created_at, updated_at) VALUES (?, ?, ?, '', '', 0, 0, 0, 0, 0)",
          [id, ext, ext],
        );
      }
      await q(
        "INSERT INTO `groups` (id, public_id, name, avatar, introduction, owner_id, disabled, created_at, updated_at) VALUES (1, 'g', 'G', '', '', 1, 0, 0, 0)",
      );
      await q(
        "INSERT INTO conversations (id, type, direct_key, group_id, last_seq, content_updated_at, deletion_revision, created_at) VALUES (10, 'group', NULL, 1, 5, 500, 0, 0)",
      );
      await q(
        "INSERT INTO conversations (id, type, direct_key, group_id, last_seq, content_updated_at, deletion_revision, created_at) VALUES (11, 'direct', '1:2', NULL, 1, 900, 0, 0)",
      );
      for (let seq = 1; seq <= 5; seq += 1) {
        await q(
          "INSERT INTO messages (conversation_id, seq, sender_id, client_message_id, type, content, status, created_at, updated_at) VALUES (10, ?, ?, ?, 'text', '{}', ?, ?, ?)",
          [seq, seq === 5 ? 2 : 1, `m${seq}`, seq === 4 ? 'recalled' : 'normal', seq * 100, seq * 100],
        );
      }
      await q(
        "INSERT INTO messages (conversation_id, seq, sender_id, client_message_id, type, content, status, created_at, updated_at) VALUES (11, 1, 1, 'd1', 'text', '{}', 'normal', 900, 900)",
      );
      // Group: user 2 read up to 1 (unread 2, 3: messages 4 recalled and 5 their own do not count), hid it at 5;
      // user 3 left at 3, read up to 0 (unread 3). Direct: user 2 has 1 unread.
      const member =
        'INSERT INTO conversation_members (conversation_id, user_id, read_seq, visible_from_seq, visible_to_seq, unread_count, last_activity_at, pinned, muted, hidden, created_at, updated_at) VALUES (?, ?, ?, 0, ?, ?, ?, 0, 0, ?, 0, 0)';
      await q(member, [10, 1, 5, null, 0, 500, 0]);
      await q(member, [10, 2, 1, null, 2, 500, 1]);
      await q(member, [10, 3, 0, 3, 3, 300, 0]);
      await q(member, [11, 1, 1, null, 0, 900, 0]);
      await q(member, [11, 2, 0, null, 1, 900, 0]);
    } finally {
      await before.destroy();
    }

    const after = new DataSource({ ...options, migrations: MIGRATIONS.slice(0, 3) } as DataSourceOptions);
    await after.initialize();
    try {
      await after.runMigrations();
      const rows: Row[] = await after.query(
        'SELECT m.user_id, m.conversation_id, m.is_group, m.uncounted, m.unread_count, m.hidden, m.hidden_seq, c.last_message_at FROM conversation_members m JOIN conversations c ON c.id = m.conversation_id ORDER BY m.conversation_id, m.user_id',
      );
      const view = rows.map((r) =>
        [
          r.conversation_id,
          r.user_id,
          r.is_group,
          r.uncounted,
          r.unread_count,
          r.hidden,
          r.hidden_seq,
          r.last_message_at,
        ].map((v) => (v === null ? null : Number(v))),
      );
      expect(view).toEqual([
        // group: unread = upper - read_seq - uncounted, so 5-5-0=0, 5-1-2=2, 3-0-0=3
        [10, 1, 1, 0, 0, 0, null, 500],
        [10, 2, 1, 2, 0, 1, 5, 500],
        [10, 3, 1, 0, 0, 0, null, 500],
        // direct rows keep their stored counters
        [11, 1, 0, 0, 0, 0, null, 900],
        [11, 2, 0, 0, 1, 0, null, 900],
      ]);

      // A group event written under the new schema is delivered on `down` through recipient rows.
      await after.query(
        "INSERT INTO outbox_events (event_id, type, payload, conversation_id, seq, private_payloads, created_at) VALUES ('e-group', 'message.new', '{}', 10, 5, NULL, 0)",
      );
      await after.query(
        'INSERT INTO outbox_events (event_id, type, payload, conversation_id, seq, private_payloads, created_at) VALUES (\'e-direct\', \'message.new\', \'{}\', 11, 1, \'{"1":{"unread":0},"2":{"unread":1}}\', 0)',
      );
      await after.undoLastMigration();
      const restored: Row[] = await after.query(
        'SELECT conversation_id, user_id, unread_count, hidden FROM conversation_members ORDER BY conversation_id, user_id',
      );
      expect(restored.map((r) => [r.conversation_id, r.user_id, r.unread_count, r.hidden].map(Number))).toEqual([
        [10, 1, 0, 0],
        [10, 2, 2, 1],
        [10, 3, 3, 0],
        [11, 1, 0, 0],
        [11, 2, 1, 0],
      ]);
      const recipients: Row[] = await after.query(
        'SELECT e.event_id, r.user_id, r.private_payload FROM outbox_recipients r JOIN outbox_events e ON e.id = r.position ORDER BY e.event_id, r.user_id',
      );
      expect(
        recipients.map((r) => [
          r.event_id,
          Number(r.user_id),
          r.private_payload === null ? null : JSON.parse(String(r.private_payload)),
        ]),
      ).toEqual([
        ['e-direct', 1, { unread: 0 }],
        ['e-direct', 2, { unread: 1 }],
        ['e-group', 1, null],
        ['e-group', 2, null],
      ]);
      await after.runMigrations();
    } finally {
      await after.destroy();
      await cleanup();
    }
  });
});

describe('migration 1732500000000 (one-to-one unread totals per user)', () => {
  it("fills each user's totals from their one-to-one rows, and drops them on down", async () => {
    const { options, cleanup } = await scratchOptions();
    const source = new DataSource({ ...options, migrations: MIGRATIONS.slice(0, 3) } as DataSourceOptions);
    await source.initialize();
    try {
      await source.runMigrations();
      const q = (sql: string, params: unknown[] = []): Promise<Row[]> => source.query(sql, params);
      for (const [id, ext] of [
        [1, 'a'],
        [2, 'b'],
        [3, 'c'],
        [4, 'd'],
      ] as const) {
        await q(
          "INSERT INTO users (id, external_id, nickname, avatar, signature, profile_updated_at, token_version, disabled, created_at, updated_at) VALUES (?, ?, ?, '', '', 0, 0, 0, 0, 0)",
          [id, ext, ext],
        );
      }
      await q(
        "INSERT INTO conversations (id, type, direct_key, group_id, last_seq, content_updated_at, deletion_revision, created_at) VALUES (11, 'direct', '1:2', NULL, 4, 0, 0, 0)",
      );
      await q(
        "INSERT INTO conversations (id, type, direct_key, group_id, last_seq, content_updated_at, deletion_revision, created_at) VALUES (12, 'direct', '1:3', NULL, 3, 0, 0, 0)",
      );
      await q(
        "INSERT INTO `groups` (id, public_id, name, avatar, introduction, owner_id, disabled, created_at, updated_at) VALUES (1, 'g', 'G', '', '', 4, 0, 0, 0)",
      );
      await q(
        "INSERT INTO conversations (id, type, direct_key, group_id, last_seq, content_updated_at, deletion_revision, created_at) VALUES (13, 'group', NULL, 1, 9, 0, 0, 0)",
      );
      // [conversation, user, is_group, unread_count, muted]
      const members = [
        [11, 1, 0, 3, 0],
        [11, 2, 0, 1, 0],
        [12, 1, 0, 2, 1],
        [12, 3, 0, 0, 0],
        [13, 4, 1, 0, 0],
      ];
      for (const [conversation, user, isGroup, unread, muted] of members) {
        await q(
          'INSERT INTO conversation_members (conversation_id, user_id, is_group, read_seq, visible_from_seq, unread_count, muted, pinned, hidden, uncounted, last_activity_at, created_at, updated_at) VALUES (?, ?, ?, 0, 0, ?, ?, 0, 0, 0, 0, 0, 0)',
          [conversation, user, isGroup, unread, muted],
        );
      }
    } finally {
      await source.destroy();
    }

    const after = new DataSource({ ...options, migrations: MIGRATIONS.slice(0, 4) } as DataSourceOptions);
    await after.initialize();
    try {
      await after.runMigrations();
      const totals: Row[] = await after.query(
        'SELECT user_id, direct_unread, direct_unread_unmuted FROM user_unread_totals ORDER BY user_id',
      );
      // Users 1-3 have one-to-one rows (user 3 at 0, still with a row); the group-only user 4 has none.
      expect(totals.map((r) => [r.user_id, r.direct_unread, r.direct_unread_unmuted].map(Number))).toEqual([
        [1, 5, 3],
        [2, 1, 1],
        [3, 0, 0],
      ]);
      await after.undoLastMigration();
      const runner = after.createQueryRunner();
      try {
        expect(await runner.hasTable('user_unread_totals')).toBe(false);
      } finally {
        await runner.release();
      }
      const executed: Row[] = await after.query('SELECT name FROM schema_migrations ORDER BY id');
      expect(executed.map((r) => r.name)).toEqual(MIGRATIONS.slice(0, 3).map((m) => m.name));
      await after.runMigrations();
      const refilled: Row[] = await after.query(
        'SELECT user_id, direct_unread, direct_unread_unmuted FROM user_unread_totals ORDER BY user_id',
      );
      expect(refilled.map((r) => [r.user_id, r.direct_unread, r.direct_unread_unmuted].map(Number))).toEqual([
        [1, 5, 3],
        [2, 1, 1],
        [3, 0, 0],
      ]);
    } finally {
      await after.destroy();
      await cleanup();
    }
  });
});

describe('migration 1732600000000 (one-to-one member rows name their peer)', () => {
  it('fills peer_id from the other member row, leaves group rows NULL, and drops the column on down', async () => {
    const { options, cleanup } = await scratchOptions();
    const source = new DataSource({ ...options, migrations: MIGRATIONS.slice(0, 4) } as DataSourceOptions);
    await source.initialize();
    try {
      await source.runMigrations();
      const q = (sql: string, params: unknown[] = []): Promise<Row[]> => source.query(sql, params);
      for (const [id, ext] of [
        [1, 'a'],
        [2, 'b'],
        [3, 'c'],
      ] as const) {
        await q(
          "INSERT INTO users (id, external_id, nickname, avatar, signature, profile_updated_at, token_version, disabled, created_at, updated_at) VALUES (?, ?, ?, '', '', 0, 0, 0, 0, 0)",
          [id, ext, ext],
        );
      }
      await q(
        "INSERT INTO conversations (id, type, direct_key, group_id, last_seq, content_updated_at, deletion_revision, created_at) VALUES (11, 'direct', '1:2', NULL, 0, 0, 0, 0)",
      );
      await q(
        "INSERT INTO conversations (id, type, direct_key, group_id, last_seq, content_updated_at, deletion_revision, created_at) VALUES (12, 'direct', '1:3', NULL, 0, 0, 0, 0)",
      );
      await q(
        "INSERT INTO `groups` (id, public_id, name, avatar, introduction, owner_id, disabled, created_at, updated_at) VALUES (1, 'g', 'G', '', '', 1, 0, 0, 0)",
      );
      await q(
        "INSERT INTO conversations (id, type, direct_key, group_id, last_seq, content_updated_at, deletion_revision, created_at) VALUES (13, 'group', NULL, 1, 0, 0, 0, 0)",
      );
      // [conversation, user, is_group]: the group has two members too, and must stay without a peer.
      for (const [conversation, user, isGroup] of [
        [11, 1, 0],
        [11, 2, 0],
        [12, 1, 0],
        [12, 3, 0],
        [13, 1, 1],
        [13, 2, 1],
      ]) {
        await q(
          'INSERT INTO conversation_members (conversation_id, user_id, is_group, read_seq, visible_from_seq, unread_count, muted, pinned, hidden, uncounted, last_activity_at, created_at, updated_at) VALUES (?, ?, ?, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)',
          [conversation, user, isGroup],
        );
      }
    } finally {
      await source.destroy();
    }

    const after = new DataSource({ ...options, migrations: MIGRATIONS.slice(0, 5) } as DataSourceOptions);
    await after.initialize();
    const peers = async (): Promise<Array<Array<number | null>>> =>
      (
        (await after.query(
          'SELECT conversation_id, user_id, peer_id FROM conversation_members ORDER BY conversation_id, user_id',
        )) as Row[]
      ).map((r) => [Number(r.conversation_id), Number(r.user_id), r.peer_id === null ? null : Number(r.peer_id)]);
    const expected = [
      [11, 1, 2],
      [11, 2, 1],
      [12, 1, 3],
      [12, 3, 1],
      [13, 1, null],
      [13, 2, null],
    ];
    try {
      await after.runMigrations();
      expect(await peers()).toEqual(expected);
      await after.undoLastMigration();
      const runner = after.createQueryRunner();
      try {
        expect((await runner.getTable('conversation_members'))?.findColumnByName('peer_id')).toBeUndefined();
      } finally {
        await runner.release();
      }
      await after.runMigrations();
      expect(await peers()).toEqual(expected);
    } finally {
      await after.destroy();
      await cleanup();
    }
  });
});

describe('migration 1732700000000 (media links name the message that carries the media)', () => {
  it('finds the messages that carry each linked media item, drops links of recalled ones, and folds them back on down', async () => {
    const { options, cleanup } = await schemaBefore(5, async (q) => {
      await insertUsers(q, [1, 2]);
      await q(
        "INSERT INTO conversations (id, type, direct_key, group_id, last_seq, content_updated_at, deletion_revision, created_at) VALUES (11, 'direct', '1:2', NULL, 6, 0, 0, 0)",
      );
      // [seq, type, content, status]: media 7 sent twice, 8 recalled, 70 (whose ID starts with 7) once.
      const messages: Array<[number, string, string, string]> = [
        [
          1,
          'image',
          '{"media_id":"7","width":10,"mime_type":"image/png","size":3,"file_name":"a.png","url":"/app/sdk/media/7"}',
          'normal',
        ],
        [2, 'text', '{"text":"\\"media_id\\":\\"7\\""}', 'normal'],
        [
          3,
          'image',
          '{"media_id":"7","mime_type":"image/png","size":3,"file_name":"a.png","url":"/app/sdk/media/7"}',
          'normal',
        ],
        [4, 'file', '', 'recalled'],
        [
          5,
          'file',
          '{"media_id":"70","mime_type":"application/pdf","size":3,"file_name":"b.pdf","url":"/app/sdk/media/70"}',
          'normal',
        ],
        [
          6,
          'image',
          '{"media_id":"9","mime_type":"image/png","size":3,"file_name":"c.png","url":"/app/sdk/media/9"}',
          'deleted',
        ],
      ];
      for (const [seq, type, content, status] of messages) {
        await q(
          'INSERT INTO messages (conversation_id, seq, sender_id, client_message_id, type, content, status, created_at, updated_at) VALUES (11, ?, 1, ?, ?, ?, ?, ?, ?)',
          [seq, `m${seq}`, type, content, status, seq * 100, seq * 100],
        );
      }
      for (const [id, media] of [
        [1, 7],
        [2, 8],
        [3, 70],
        [4, 9],
      ]) {
        await q('INSERT INTO media_links (id, media_id, conversation_id, created_at) VALUES (?, ?, 11, ?)', [
          id,
          media,
          id * 1000,
        ]);
      }
    });

    const after = new DataSource({ ...options, migrations: MIGRATIONS.slice(0, 6) } as DataSourceOptions);
    await after.initialize();
    const links = async (columns: string): Promise<Array<Array<number>>> =>
      ((await after.query(`SELECT ${columns} FROM media_links ORDER BY ${columns}`)) as Row[]).map((r) =>
        Object.values(r).map(Number),
      );
    const expected = [
      [7, 11, 1, 100],
      [7, 11, 3, 300],
      [70, 11, 5, 500],
    ];
    try {
      await after.runMigrations();
      expect(await links('media_id, conversation_id, seq, created_at')).toEqual(expected);
      await after.undoLastMigration();
      expect(await links('media_id, conversation_id, created_at')).toEqual([
        [7, 11, 100],
        [70, 11, 500],
      ]);
      await after.runMigrations();
      expect(await links('media_id, conversation_id, seq, created_at')).toEqual(expected);
      // One link per message: the unique key holds.
      await expect(
        after.query('INSERT INTO media_links (media_id, conversation_id, seq, created_at) VALUES (7, 11, 1, 0)'),
      ).rejects.toThrow();
    } finally {
      await after.destroy();
      await cleanup();
    }
  });
});

describe('migration 1732800000000 (former members keep their own calibration versions)', () => {
  it("starts former members at their conversation's versions, leaves current members NULL, and drops both columns on down", async () => {
    const { options, cleanup } = await schemaBefore(6, async (q) => {
      await insertUsers(q, [1, 2]);
      await q(
        "INSERT INTO `groups` (id, public_id, name, avatar, introduction, owner_id, disabled, created_at, updated_at) VALUES (1, 'g', 'G', '', '', 1, 0, 0, 0)",
      );
      await q(
        "INSERT INTO conversations (id, type, direct_key, group_id, last_seq, content_updated_at, deletion_revision, created_at) VALUES (10, 'group', NULL, 1, 9, 4567, 3, 0)",
      );
      const member =
        'INSERT INTO conversation_members (conversation_id, user_id, is_group, read_seq, visible_from_seq, visible_to_seq, unread_count, muted, pinned, hidden, uncounted, last_activity_at, created_at, updated_at) VALUES (10, ?, 1, 0, 0, ?, 0, 0, 0, 0, 0, 0, 0, 0)';
      await q(member, [1, null]);
      await q(member, [2, 5]);
    });

    const after = new DataSource({ ...options, migrations: MIGRATIONS.slice(0, 7) } as DataSourceOptions);
    await after.initialize();
    const versions = async (): Promise<Array<Array<number | null>>> =>
      (
        (await after.query(
          'SELECT user_id, visible_updated_at, visible_deletion_revision FROM conversation_members ORDER BY user_id',
        )) as Row[]
      ).map((r) =>
        [r.user_id, r.visible_updated_at, r.visible_deletion_revision].map((v) => (v === null ? null : Number(v))),
      );
    const expected = [
      [1, null, null],
      [2, 4567, 3],
    ];
    try {
      await after.runMigrations();
      expect(await versions()).toEqual(expected);
      await after.undoLastMigration();
      const runner = after.createQueryRunner();
      try {
        const table = await runner.getTable('conversation_members');
        expect(table?.findColumnByName('visible_updated_at')).toBeUndefined();
        expect(table?.findColumnByName('visible_deletion_revision')).toBeUndefined();
      } finally {
        await runner.release();
      }
      await after.runMigrations();
      expect(await versions()).toEqual(expected);
    } finally {
      await after.destroy();
      await cleanup();
    }
  });
});
