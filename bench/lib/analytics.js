'use strict';

/**
 * Analytics at scale (issue 25), MariaDB/MySQL only. On a fresh database:
 *   1. seeds BENCH_ANALYTICS_MESSAGES messages (default 10,000,000) straight into the messages
 *      table with INSERT ... SELECT from MariaDB's sequence engine, a million rows a statement,
 *      spread over the last 90 days with a realistic mix of types; plus who was active on each of
 *      those days (20,000 a day, 34,500 distinct over 30 days) and 48 hours of hourly figures;
 *   2. runs the rollup job (ANALYTICS_INTERVAL_SECONDS=1, ANALYTICS_SETTLE_SECONDS=0) for up to
 *      BENCH_ANALYTICS_ROLLUP_S seconds (default 60) and reports messages rolled up per second
 *      (its cursor is the last message ID it passed; IDs are 1..N);
 *   3. completes the daily rollup (one GROUP BY over the table, timed) and moves the cursor to
 *      the end, then times GET /app/admin/analytics?range=30d and 90d and GET /app/admin/dashboard
 *      one request at a time (BENCH_ANALYTICS_REQUESTS each, default 200, after 10 warm-up
 *      requests): p50/p95/max. Today's DAU and MAU are counted live on each request (the MAU
 *      from users.last_active_at over 30 days), so they are part of the figure.
 * The database is dropped at the end unless BENCH_KEEP_DB=1.
 */

const { execFileSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Server, ROOT } = require('./server');

const PORT = 3921;
const DAY = 86_400_000;
const HOUR = 3_600_000;
const STATEMENT_ROWS = 1_000_000;

function analyticsSettings() {
  return {
    messages: Number(process.env.BENCH_ANALYTICS_MESSAGES || 10_000_000),
    rollupSeconds: Number(process.env.BENCH_ANALYTICS_ROLLUP_S || 60),
    requests: Number(process.env.BENCH_ANALYTICS_REQUESTS || 200),
  };
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const seconds = (from) => Math.round((Date.now() - from) / 100) / 10;

async function runAnalytics({ driver, settings, prepareMysql, serverEnv, liveServers }) {
  const own = analyticsSettings();
  const report = { driver, ...own };
  if (driver !== 'mysql') return { ...report, skipped: 'MariaDB/MySQL only (the 10-million-message seed)' };
  const url = new URL(settings.mysqlUrl);
  url.pathname = `${url.pathname.replace(/\/$/, '')}_analytics`;
  const databaseUrl = url.toString();
  const prepared = await prepareMysql(databaseUrl);
  if (prepared.unreachable) return { ...report, skipped: prepared.unreachable };
  report.database = `MariaDB/MySQL ${prepared.version}`;
  const mysql = require('mysql2/promise');
  const db = await mysql.createConnection({ uri: databaseUrl, multipleStatements: false });
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'im-bench-analytics-'));
  const secrets = {
    sdkSecret: `sdk-${randomBytes(32).toString('base64url')}`,
    jwtSecret: `jwt-${randomBytes(32).toString('base64url')}`,
    rtcAppId: '1400000001',
    rtcSecret: `rtc-${randomBytes(24).toString('base64url')}`,
  };
  const env = (extra) => ({
    ...serverEnv({ port: PORT, databaseUrl, mediaDir: path.join(tempDir, 'media'), ...secrets }),
    ...extra,
  });
  let server = null;
  const start = async (extra) => {
    server = new Server({ name: 'analytics', port: PORT, env: env(extra) });
    liveServers.add(server);
    server.start();
    await server.waitHealthy();
  };
  const stop = async () => {
    if (!server) return;
    await server.stop();
    liveServers.delete(server);
    server = null;
  };
  console.log(`\n== analytics, ${driver}: ${report.database}, ${own.messages.toLocaleString('en')} messages ==`);
  try {
    // ---- schema (the server migrates), an administrator, then the seed with the server stopped
    await start({ ANALYTICS_JOB: 'false' });
    const password = `bench-${randomBytes(12).toString('hex')}`;
    const main = process.env.BENCH_MAIN ? path.resolve(process.env.BENCH_MAIN) : path.join(ROOT, 'dist', 'main.js');
    execFileSync(
      process.execPath,
      [path.join(path.dirname(main), 'cli', 'admin-create.js'), '--username', 'bench', '--role', 'viewer'],
      {
        cwd: ROOT,
        env: { ...env({}), ADMIN_PASSWORD: password },
        stdio: 'ignore',
      },
    );
    await stop();

    const now = Date.now();
    const first = now - (now % DAY) - 89 * DAY;
    const span = now - first;
    let began = Date.now();
    // The secondary indexes are dropped for the seed and built again after it (a sorted build):
    // maintained row by row, their random inserts hold a default 128 MB buffer pool to about
    // 10,000 rows a second. Rows go in primary-key order, so the table itself only appends.
    const [indexes] = await db.query(
      "SELECT DISTINCT index_name AS name FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'messages' AND index_name <> 'PRIMARY'",
    );
    const definitions = [];
    for (const { name } of indexes) {
      const [[row]] = await db.query(
        `SELECT GROUP_CONCAT(column_name ORDER BY seq_in_index) AS cols, MIN(non_unique) AS non_unique
         FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'messages' AND index_name = ?`,
        [name],
      );
      definitions.push(`ADD ${Number(row.non_unique) ? '' : 'UNIQUE '}INDEX \`${name}\` (${row.cols})`);
    }
    if (definitions.length)
      await db.query(`ALTER TABLE messages ${indexes.map(({ name }) => `DROP INDEX \`${name}\``).join(', ')}`);
    for (let offset = 0; offset < own.messages; offset += STATEMENT_ROWS) {
      const rows = Math.min(STATEMENT_ROWS, own.messages - offset);
      // n = offset + seq: conversation n % 1000, its seq n div 1000; one sender in 5000; created
      // evenly over the 90 days; types 70 % text, 10 % image, 10 % file, 10 % custom.
      await db.query(
        `INSERT INTO messages (conversation_id, seq, sender_id, client_message_id, type, content, content_hash, search_text, event_id, status, created_at, updated_at)
         SELECT n % 1000 + 1, n DIV 1000 + 1, n % 5000 + 1, CONCAT('b', n), ELT(1 + n % 10, 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'image', 'file', 'custom'),
                '{"text":"hello"}', '', 'hello', '', 'normal', ? + FLOOR(n * ?), ? + FLOOR(n * ?)
         FROM (SELECT seq + ? AS n FROM seq_0_to_${STATEMENT_ROWS - 1} WHERE seq < ?) s`,
        [first, span / own.messages, first, span / own.messages, offset, rows],
      );
      process.stdout.write(`  seeded ${(offset + rows).toLocaleString('en')} messages (${seconds(began)} s)\r`);
    }
    const indexing = Date.now();
    if (definitions.length) await db.query(`ALTER TABLE messages ${definitions.join(', ')}`);
    report.indexBuildS = seconds(indexing);
    report.seedMessagesS = seconds(began);
    console.log(`\n  messages seeded in ${report.seedMessagesS} s (indexes built in ${report.indexBuildS} s)`);
    began = Date.now();
    // Who was active: day d has users d*500+1 .. d*500+20000 (DAU 20,000; 34,500 distinct over 30 days).
    await db.query(
      `INSERT INTO analytics_user_days (day, user_id)
       SELECT ? + d.seq * ${DAY}, d.seq * 500 + u.seq + 1 FROM seq_0_to_89 d JOIN seq_0_to_19999 u`,
      [first],
    );
    // The users themselves, last active on the last day they have a row for (today's MAU reads them).
    await db.query(
      `INSERT INTO users (external_id, nickname, profile_updated_at, created_at, updated_at, last_active_at)
       SELECT CONCAT('bu', seq), 'Bench', ?, ?, ?, ? + LEAST(89, (seq - 1) DIV 500) * ${DAY} + ${12 * HOUR} FROM seq_1_to_64500`,
      [now, now, now, first],
    );
    await db.query(
      `INSERT INTO analytics_daily (day, metric, dimension, value)
       SELECT ? + d.seq * ${DAY}, m.metric, m.dimension, m.value FROM seq_0_to_88 d
       JOIN (SELECT 'dau' AS metric, '' AS dimension, 20000 AS value UNION ALL SELECT 'mau', '', 34500
             UNION ALL SELECT 'calls', 'audio', 300 UNION ALL SELECT 'call_seconds', 'audio', 54000
             UNION ALL SELECT 'calls', 'video', 120 UNION ALL SELECT 'call_seconds', 'video', 36000) m`,
      [first],
    );
    await db.query("UPDATE analytics_jobs SET cursor_at = ? WHERE name = 'active_days'", [first + 88 * DAY]);
    const hour = now - (now % HOUR);
    await db.query(
      `INSERT INTO analytics_hourly (hour, metric, dimension, value)
       SELECT ? - h.seq * ${HOUR}, m.metric, '', m.value FROM seq_0_to_47 h
       JOIN (SELECT 'peak_connections' AS metric, 5000 AS value UNION ALL SELECT 'requests', 400000
             UNION ALL SELECT 'client_errors', 1200 UNION ALL SELECT 'server_errors', 3) m`,
      [hour],
    );
    report.seedActivityS = seconds(began);

    // ---- the rollup job's throughput
    await start({ ANALYTICS_JOB: 'true', ANALYTICS_INTERVAL_SECONDS: '1', ANALYTICS_SETTLE_SECONDS: '0' });
    const cursor = async () =>
      Number((await db.query("SELECT cursor_id FROM analytics_jobs WHERE name = 'messages'"))[0][0].cursor_id);
    let moved = 0;
    while ((moved = await cursor()) === 0) await new Promise((resolve) => setTimeout(resolve, 200));
    const from = { at: Date.now(), id: moved };
    let last = from;
    const [[{ maxId }]] = await db.query('SELECT MAX(id) AS maxId FROM messages');
    while (Date.now() - from.at < own.rollupSeconds * 1000 && last.id < Number(maxId)) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      last = { at: Date.now(), id: await cursor() };
    }
    await stop();
    // IDs have gaps between the seed's statements (auto-increment ranges of bulk inserts): the
    // messages passed are counted, not the difference of IDs.
    const passed = async (id) =>
      Number((await db.query('SELECT COUNT(*) AS n FROM messages WHERE id <= ?', [id]))[0][0].n);
    const count = (await passed(last.id)) - (await passed(from.id));
    report.rollup = {
      messages: count,
      seconds: Math.round((last.at - from.at) / 100) / 10,
      perSecond: Math.round(count / ((last.at - from.at) / 1000)),
    };
    console.log(
      `  rollup job: ${report.rollup.perSecond.toLocaleString('en')} messages/s over ${report.rollup.seconds} s`,
    );
    // With the server stopped: the rolled-up sums must equal the messages up to the cursor.
    const [[check]] = await db.query(
      "SELECT (SELECT COALESCE(SUM(value), 0) FROM analytics_daily WHERE metric = 'messages') AS rolled, (SELECT cursor_id FROM analytics_jobs WHERE name = 'messages') AS cursor_id",
    );
    report.rollup.consistent = Number(check.rolled) === (await passed(check.cursor_id));

    // ---- the rest of the rollup in one statement, then the page timings
    began = Date.now();
    await db.query("DELETE FROM analytics_daily WHERE metric = 'messages'");
    await db.query(
      `INSERT INTO analytics_daily (day, metric, dimension, value)
       SELECT created_at - created_at % ${DAY}, 'messages', type, COUNT(*) FROM messages GROUP BY 1, 3`,
    );
    await db.query("UPDATE analytics_jobs SET cursor_id = (SELECT MAX(id) FROM messages) WHERE name = 'messages'");
    report.fullGroupByS = seconds(began);
    await start({ ANALYTICS_JOB: 'false' });
    const login = await fetch(`${server.baseUrl}/app/admin/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Admin-CSRF': '1' },
      body: JSON.stringify({ username: 'bench', password }),
    });
    const cookie = (login.headers.get('set-cookie') || '').split(';')[0];
    if ((await login.json()).code !== 0) throw new Error('analytics bench: admin login failed');
    report.pages = {};
    for (const [name, route] of [
      ['analytics 30d', '/app/admin/analytics?range=30d'],
      ['analytics 90d', '/app/admin/analytics?range=90d'],
      ['dashboard', '/app/admin/dashboard'],
    ]) {
      const times = [];
      for (let i = 0; i < 10 + own.requests; i++) {
        const t0 = process.hrtime.bigint();
        const response = await fetch(server.baseUrl + route, { headers: { Cookie: cookie } });
        const body = await response.json();
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (body.code !== 0) throw new Error(`${route}: ${JSON.stringify(body).slice(0, 200)}`);
        if (i >= 10) times.push(ms);
        if (i === 10 && name === 'analytics 90d')
          report.check90d = {
            days: body.data.days.length,
            messages: body.data.days.reduce((s, d) => s + d.messages, 0),
            today: body.data.today,
          };
      }
      times.sort((a, b) => a - b);
      report.pages[name] = {
        p50: Math.round(percentile(times, 50) * 10) / 10,
        p95: Math.round(percentile(times, 95) * 10) / 10,
        max: Math.round(times[times.length - 1] * 10) / 10,
      };
      console.log(`  ${name}: p50 ${report.pages[name].p50} ms, p95 ${report.pages[name].p95} ms`);
    }
    // The statements of today's DAU/MAU alone, and the job's per-day MAU (COUNT DISTINCT over 30 days).
    const timed = async (sql, params) => {
      const t0 = process.hrtime.bigint();
      await db.query(sql, params);
      return Math.round(Number(process.hrtime.bigint() - t0) / 1e5) / 10;
    };
    const today = now - (now % DAY);
    report.statementsMs = {
      dauToday: await timed('SELECT COUNT(*) AS n FROM analytics_user_days WHERE day = ?', [today - DAY]),
      mauToday: await timed('SELECT COUNT(*) AS n FROM users WHERE last_active_at >= ?', [today - 29 * DAY]),
      mauOfAFinishedDay: await timed(
        'SELECT COUNT(DISTINCT user_id) AS n FROM analytics_user_days WHERE day >= ? AND day <= ?',
        [today - 30 * DAY, today - DAY],
      ),
    };
  } finally {
    await stop().catch(() => undefined);
    if (!process.env.BENCH_KEEP_DB) await db.query(`DROP DATABASE IF EXISTS \`${url.pathname.slice(1)}\``);
    await db.end();
    fs.rmSync(tempDir, { recursive: true, force: true });
  }
  return report;
}

function printAnalytics(reports) {
  for (const r of reports) {
    console.log(`\n-- analytics, ${r.driver} --`);
    if (r.skipped) {
      console.log(`  skipped: ${r.skipped}`);
      continue;
    }
    console.log(`  ${r.database}; ${r.messages.toLocaleString('en')} messages seeded in ${r.seedMessagesS} s`);
    console.log(
      `  rollup job: ${r.rollup.perSecond.toLocaleString('en')} messages/s (${r.rollup.messages.toLocaleString('en')} in ${r.rollup.seconds} s, sums ${r.rollup.consistent ? 'agree' : 'DISAGREE'})`,
    );
    console.log(`  one GROUP BY over the whole table: ${r.fullGroupByS} s`);
    console.log(
      `  statements: DAU of a day ${r.statementsMs.dauToday} ms, today's MAU (users.last_active_at) ${r.statementsMs.mauToday} ms, MAU of a finished day (COUNT DISTINCT, once per day by the job) ${r.statementsMs.mauOfAFinishedDay} ms`,
    );
    for (const [name, p] of Object.entries(r.pages))
      console.log(`  ${name}: p50 ${p.p50} ms, p95 ${p.p95} ms, max ${p.max} ms`);
  }
}

const analyticsInvalid = (reports) => reports.some((r) => !r.skipped && r.rollup && !r.rollup.consistent);

module.exports = { runAnalytics, printAnalytics, analyticsInvalid };
