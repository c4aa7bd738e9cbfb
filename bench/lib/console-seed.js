'use strict';

/**
 * The console section's seed (bench/lib/console.js): users, groups with their members, reports
 * against about one target in five reports, and client errors with their group rollups, each
 * table filled by a few set-based INSERT ... SELECT statements over a row-number source (MariaDB's
 * sequence engine, a recursive CTE on SQLite) into the schema the migrations made. Every value is
 * a function of the row number, so a run is the same on both drivers.
 */

const { createHash } = require('node:crypto');

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const FIRST_NAMES = [
  'Alice', 'Bruno', 'Chen', 'Dmitri', 'Elena', 'Farah', 'Goran', 'Hana', 'Ivan', 'Julia',
  'Kenji', 'Lena', 'Marco', 'Nina', 'Omar', 'Priya', 'Quinn', 'Rosa', 'Sven', 'Yuki',
]; // prettier-ignore
const GROUP_WORDS = ['Book club', 'Cycling', 'Family', 'Gaming', 'Hiking', 'Project', 'Study', 'Travel'];
/** A prefix the Users search matches (one user in 20) and one it never does. */
const SEARCH_PREFIX = 'Nin';
const SEARCH_NO_MATCH = 'Zzq';
const PLATFORMS = ['android', 'ios', 'harmony'];

/** clientErrorGroupKey() of src/client-errors/client-error-group-key.ts (the group page finds a group by it). */
const groupKeyOf = (errorCode, platform, build) =>
  createHash('sha256')
    .update(JSON.stringify([errorCode, platform, build]))
    .digest('hex');

/** CASE expr WHEN 0 THEN 'a' WHEN 1 THEN 'b' ... END */
const pick = (expr, values) => `CASE ${expr} ${values.map((v, i) => `WHEN ${i} THEN '${v}'`).join(' ')} END`;

/** The statements that differ by driver, and a connection that runs them. */
async function openSeedDb(driver, target) {
  if (driver === 'mysql') {
    const mysql = require('mysql2/promise');
    const db = await mysql.createConnection({ uri: target, multipleStatements: false });
    return {
      run: async (sql) => void (await db.query(sql)),
      all: async (sql, params = []) => (await db.query(sql, params))[0],
      seq: (n) => `seq_1_to_${n}`,
      cat: (...parts) => `CONCAT(${parts.join(', ')})`,
      div: (a, b) => `((${a}) DIV (${b}))`,
      // JSON.stringify of three strings without quotes or backslashes, hashed as the service does.
      groupKey: (c, p, b) => `SHA2(CONCAT('["', ${c}, '","', ${p}, '","', ${b}, '"]'), 256)`,
      quote: (name) => `\`${name}\``,
      analyze: async (tables) => void (await db.query(`ANALYZE TABLE ${tables.map((t) => `\`${t}\``).join(', ')}`)),
      close: () => db.end(),
    };
  }
  const Database = require('better-sqlite3');
  const db = new Database(target, { fileMustExist: true });
  db.function('bench_group_key', { deterministic: true }, groupKeyOf);
  return {
    run: async (sql) => void db.prepare(sql).run(),
    all: async (sql, params = []) => db.prepare(sql).all(...params),
    seq: (n) =>
      `(WITH RECURSIVE s(seq) AS (SELECT 1 UNION ALL SELECT seq + 1 FROM s WHERE seq < ${n}) SELECT seq FROM s)`,
    // || binds tighter than arithmetic: each part in parentheses.
    cat: (...parts) => `(${parts.map((p) => `(${p})`).join(' || ')})`,
    div: (a, b) => `((${a}) / (${b}))`,
    groupKey: (c, p, b) => `bench_group_key(${c}, ${p}, ${b})`,
    quote: (name) => `"${name}"`,
    // The service never runs ANALYZE on SQLite: the planner works without statistics there, as in production.
    analyze: async () => undefined,
    close: async () => db.close(),
  };
}

/** The first ID of rows just inserted into an empty table, checking the statement gave consecutive IDs. */
async function idBase(db, table, expected) {
  const [row] = await db.all(`SELECT MIN(id) AS lo, MAX(id) AS hi, COUNT(*) AS n FROM ${db.quote(table)}`);
  const [lo, hi, n] = [Number(row.lo), Number(row.hi), Number(row.n)];
  if (n !== expected || hi - lo + 1 !== n) throw new Error(`console seed: ${table} has ${n} rows, IDs ${lo}..${hi}`);
  return lo - 1;
}

/**
 * Seeds the scratch database (the server stopped, the schema migrated, the tables empty).
 * Returns what the cases need: ID bases, the big client-error group, the seeded counts.
 */
async function seedConsole(db, own, now) {
  const { cat, div, seq } = db;
  const timings = {};
  let began = Date.now();
  const lap = (name) => {
    timings[name] = Math.round((Date.now() - began) / 100) / 10;
    began = Date.now();
  };

  // ---- users: one created a minute up to now (the newest has the highest ID); nickname
  // "<first name> <n>"; half have a username; 70 % active at some minute of the last 90 days,
  // the rest never; 1 in 50 disabled (half of them until next week, half for good).
  const U = own.users;
  await db.run(
    `INSERT INTO users (external_id, username, nickname, avatar, signature, profile_updated_at, token_version, disabled,
       disabled_until, disabled_reason, last_active_at, erased_at, created_at, updated_at)
     SELECT ${cat("'cu'", 's.seq')}, CASE WHEN s.seq % 2 = 0 THEN ${cat("'cun'", 's.seq')} END,
            ${cat(pick('(s.seq * 7) % 20', FIRST_NAMES), "' '", 's.seq')}, '', '', ${now - U * MINUTE} + s.seq * ${MINUTE}, 0,
            CASE WHEN s.seq % 50 = 0 THEN 1 ELSE 0 END, CASE WHEN s.seq % 100 = 50 THEN ${now + 7 * DAY} END,
            CASE WHEN s.seq % 50 = 0 THEN 'Bench: spam' END,
            CASE WHEN s.seq % 10 < 7 THEN ${now} - ((s.seq * 7919) % ${90 * 24 * 60}) * ${MINUTE} END, NULL,
            ${now - U * MINUTE} + s.seq * ${MINUTE}, ${now - U * MINUTE} + s.seq * ${MINUTE}
       FROM ${seq(U)} s`,
  );
  const userBase = await idBase(db, 'users', U);
  lap('users');

  // ---- groups: one created every 10 minutes, owned by a user; 1 in 50 disabled, 1 in 100
  // dismissed; the owner and four members each (all active); a conversation each.
  const G = own.groups;
  await db.run(
    `INSERT INTO ${db.quote('groups')} (public_id, name, avatar, introduction, owner_id, disabled, dismissed_at, created_at, updated_at)
     SELECT ${cat("'cg'", 's.seq')}, ${cat(pick('s.seq % 8', GROUP_WORDS), "' '", 's.seq')}, '', '',
            ${userBase + 1} + (s.seq * 13) % ${U}, CASE WHEN s.seq % 50 = 0 THEN 1 ELSE 0 END,
            CASE WHEN s.seq % 100 = 1 THEN ${now} END, ${now - G * 10 * MINUTE} + s.seq * ${10 * MINUTE},
            ${now - G * 10 * MINUTE} + s.seq * ${10 * MINUTE}
       FROM ${seq(G)} s`,
  );
  const groupBase = await idBase(db, 'groups', G);
  // Each group's conversation (what the Groups list's last_active order reads): 80 % with a last
  // message in the last 30 days, the rest never messaged (0). No message rows: no list reads them.
  await db.run(
    `INSERT INTO conversations (type, direct_key, group_id, last_seq, content_updated_at, deletion_revision, created_at, last_message_at)
     SELECT 'group', NULL, g.id, 0, g.created_at, 0, g.created_at,
            CASE WHEN g.id % 10 < 8 THEN ${now} - ((g.id * 7919) % ${30 * 24 * 60}) * ${MINUTE} ELSE 0 END
       FROM ${db.quote('groups')} g`,
  );
  await db.run(
    `INSERT INTO group_members (group_id, user_id, role, status, muted_until, joined_at, left_at)
     SELECT g.id, ${userBase + 1} + (g.owner_id - ${userBase + 1} + k.seq - 1) % ${U},
            CASE WHEN k.seq = 1 THEN 'owner' ELSE 'member' END, 'active', 0, g.created_at, NULL
       FROM ${db.quote('groups')} g JOIN ${seq(5)} k`,
  );
  lap('groups');

  // ---- reports over the last 90 days, 75 % pending. Report n names target t = m * m div T
  // with m = n * 7919 mod T: a few targets gather hundreds of reports, most get one to four, and
  // about 0.75 T targets are named (T = reports / 3.75: about one target per five reports). One
  // target in four is a group (the users and groups above), the rest users.
  const R = own.reports;
  const T = Math.max(4, Math.ceil(R / 3.75));
  const isGroup = 'r.t % 4 = 0';
  const userIndex = `1 + r.t % ${U}`;
  const groupIndex = `1 + ${div('r.t', 4)} % ${G}`;
  await db.run(
    `INSERT INTO reports (reporter_id, request_id, target_type, target_public_id, target_user_id, target_group_id, reason_code,
       description, conversation_id, conversation_ref, message_ids, status, created_at, updated_at)
     SELECT ${userBase + 1} + (r.n * 31) % ${U}, ${cat("'rq-'", 'r.n')}, CASE WHEN ${isGroup} THEN 'group' ELSE 'user' END,
            CASE WHEN ${isGroup} THEN ${cat("'cg'", groupIndex)} ELSE ${cat("'cu'", userIndex)} END,
            CASE WHEN ${isGroup} THEN NULL ELSE ${userBase} + ${userIndex} END,
            CASE WHEN ${isGroup} THEN ${groupBase} + ${groupIndex} END,
            1 + (r.n * 13) % 8, '', '', NULL, '[]',
            CASE WHEN r.n % 4 <> 0 THEN 'pending' WHEN r.n % 8 = 0 THEN 'closed' ELSE 'reviewed' END,
            ${now - 90 * DAY} + ${div(`r.n * ${90 * DAY}`, R)}, ${now - 90 * DAY} + ${div(`r.n * ${90 * DAY}`, R)}
       FROM (SELECT a.n, ${div('a.m * a.m', T)} AS t FROM (SELECT s.seq AS n, (s.seq * 7919) % ${T} AS m FROM ${seq(R)} s) a) r`,
  );
  const [targets] = await db.all(
    'SELECT COUNT(*) AS n FROM (SELECT target_type, target_public_id FROM reports GROUP BY target_type, target_public_id) t',
  );
  const [pending] = await db.all("SELECT COUNT(*) AS n FROM reports WHERE status = 'pending'");
  lap('reports');

  // ---- client errors: E records over the last 30 days in C groups (error code, platform,
  // build), half of them in group 0; one device per user; then the groups' rollups (counters,
  // distinct users and devices, per hour over 48 h and per day over 32 days) computed from the
  // records, as the migration's backfill does.
  const E = own.clientErrors;
  const C = Math.max(2, own.errorGroups);
  const start = now - 30 * DAY;
  await db.run(
    `INSERT INTO client_errors (event_id, merge_key, user_id, username, device_id, platform, severity, error_code, message,
       stack_trace, operation, build_id, conversation_id, message_id, trace_id, recovered, context, occurrence_count,
       first_seen_at, last_seen_at)
     SELECT ${cat("'ev-'", 'r.n')}, ${cat("'mk-'", 'r.n')}, ${userBase + 1} + r.u, NULL, ${cat("'dev-'", 'r.u')},
            ${pick('r.g % 3', PLATFORMS)},
            CASE WHEN r.g % 10 = 0 THEN 'fatal' WHEN r.g % 3 = 0 THEN 'serious' ELSE 'normal' END,
            ${cat("'bench.e'", 'r.g')}, ${cat("'Request timed out after 15000 ms (bench '", 'r.g', "')'")}, NULL,
            'messages.send', ${cat("'7.'", 'r.g % 10')}, NULL, NULL, NULL, 0, '{}', 1 + r.n % 3,
            ${start} + r.at, ${start} + r.at + (r.n % 60) * 1000
       FROM (SELECT s.seq AS n, CASE WHEN s.seq <= ${Math.floor(E / 2)} THEN 0 ELSE 1 + s.seq % ${C - 1} END AS g,
                    (s.seq * 7919) % ${U} AS u, ${div(`((s.seq * 7919) % ${E}) * ${30 * DAY - MINUTE}`, E)} AS at
               FROM ${seq(E)} s) r`,
  );
  const key = db.groupKey('error_code', 'platform', "COALESCE(build_id, '')");
  const byGroup = "error_code, platform, COALESCE(build_id, '')";
  await db.run(
    `INSERT INTO client_error_groups (group_key, error_code, platform, build_id, severity_rank, occurrence_count, user_count,
       device_count, first_seen_at, last_seen_at, last_message)
     SELECT ${key}, error_code, platform, COALESCE(build_id, ''),
            MAX(CASE severity WHEN 'fatal' THEN 3 WHEN 'serious' THEN 2 ELSE 1 END), SUM(occurrence_count),
            COUNT(DISTINCT user_id), COUNT(DISTINCT device_id), MIN(first_seen_at), MAX(last_seen_at), MAX(message)
       FROM client_errors GROUP BY ${byGroup}`,
  );
  await db.run(
    `INSERT INTO client_error_group_users (group_key, user_id, occurrence_count)
     SELECT ${key}, user_id, SUM(occurrence_count) FROM client_errors GROUP BY ${byGroup}, user_id`,
  );
  await db.run(
    `INSERT INTO client_error_group_devices (group_key, device_id, user_id, occurrence_count)
     SELECT ${key}, device_id, MIN(user_id), SUM(occurrence_count) FROM client_errors GROUP BY ${byGroup}, device_id`,
  );
  for (const [table, size, from] of [
    ['client_error_group_hours', HOUR, now - (now % HOUR) - 47 * HOUR],
    ['client_error_group_days', DAY, now - (now % DAY) - 31 * DAY],
  ])
    await db.run(
      `INSERT INTO ${table} (group_key, bucket_start, occurrence_count)
       SELECT ${key}, first_seen_at - first_seen_at % ${size}, SUM(occurrence_count) FROM client_errors
        WHERE first_seen_at >= ${from} GROUP BY ${byGroup}, first_seen_at - first_seen_at % ${size}`,
    );
  const [big] = await db.all(
    "SELECT error_code, platform, build_id, group_key, occurrence_count FROM client_error_groups WHERE error_code = 'bench.e0'",
  );
  if (!big || big.group_key !== groupKeyOf(big.error_code, big.platform, big.build_id))
    throw new Error('console seed: the client-error group key differs from the service’s');
  const [bigRecords] = await db.all("SELECT COUNT(*) AS n FROM client_errors WHERE error_code = 'bench.e0'");
  lap('clientErrors');

  await db.analyze([
    'users',
    'groups',
    'group_members',
    'conversations',
    'reports',
    'client_errors',
    'client_error_groups',
  ]);
  lap('analyze');
  return {
    timings,
    userBase,
    groupBase,
    reportTargets: Number(targets.n),
    pendingReports: Number(pending.n),
    bigGroup: {
      error_code: big.error_code,
      platform: big.platform,
      build_id: big.build_id,
      records: Number(bigRecords.n),
    },
  };
}

module.exports = { openSeedDb, seedConsole, SEARCH_PREFIX, SEARCH_NO_MATCH };
