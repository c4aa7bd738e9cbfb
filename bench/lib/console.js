'use strict';

/**
 * The operator console's lists at production sizes, each driver. On a fresh database (the server
 * migrates it, then stops for the seed):
 *   1. seeds (bench/lib/console-seed.js, set-based INSERT ... SELECT) BENCH_CONSOLE_USERS users
 *      (default 200,000), BENCH_CONSOLE_GROUPS groups (20,000) of five members,
 *      BENCH_CONSOLE_REPORTS reports (100,000, 75 % pending) against about one target in five
 *      reports, and BENCH_CONSOLE_CLIENT_ERRORS client-error records (100,000) in
 *      BENCH_CONSOLE_ERROR_GROUPS groups (5,000), half of the records in one group, with the
 *      groups' rollups;
 *   2. boots the production build and signs in a viewer, then times each case's request one at a
 *      time (BENCH_CONSOLE_REQUESTS each, default 100, after 10 warm-up requests): p50/p95/max
 *      of the whole HTTP round trip (session, guard, envelope). Cases: the Users list by each
 *      order on its first page and from a position halfway down it (the never-active phase of
 *      last_active too), the disabled filter and a nickname-prefix search (one that matches and
 *      one that matches nothing); the Groups list by each order it accepts; reports grouped by
 *      target (open and all, by count and latest); the client-error groups by each sort, one
 *      group's page and its occurrences.
 * A position halfway down a list would take thousands of pages to reach, so the bench signs its
 * cursor itself with the server's JWT secret and the build's own CursorCodec; the cursor it mints
 * for page 2 must equal the server's next_cursor, or the run stops (the cursor's shape changed).
 * The database is dropped at the end unless BENCH_KEEP_DB=1.
 */

const { execFileSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Server, ROOT } = require('./server');
const { openSeedDb, seedConsole, SEARCH_PREFIX, SEARCH_NO_MATCH } = require('./console-seed');

const PORTS = { sqlite: 3924, mysql: 3925 };
const WARMUP = 10;

function consoleSettings() {
  const number = (name, fallback) => Math.max(1, Math.round(Number(process.env[name] || fallback)));
  return {
    users: number('BENCH_CONSOLE_USERS', 200_000),
    groups: number('BENCH_CONSOLE_GROUPS', 20_000),
    reports: number('BENCH_CONSOLE_REPORTS', 100_000),
    clientErrors: number('BENCH_CONSOLE_CLIENT_ERRORS', 100_000),
    errorGroups: number('BENCH_CONSOLE_ERROR_GROUPS', 5_000),
    requests: number('BENCH_CONSOLE_REQUESTS', 100),
  };
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const round1 = (ms) => Math.round(ms * 10) / 10;
const query = (params) =>
  new URLSearchParams(Object.entries(params).filter(([, v]) => v !== undefined && v !== null)).toString();

async function runConsole({ driver, settings, prepareMysql, serverEnv, liveServers }) {
  const own = consoleSettings();
  const report = { driver, ...own };
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), `im-bench-console-${driver}-`));
  let databaseUrl;
  let seedTarget;
  let dropDatabase = async () => undefined;
  if (driver === 'mysql') {
    const url = new URL(settings.mysqlUrl);
    url.pathname = `${url.pathname.replace(/\/$/, '')}_console`;
    databaseUrl = url.toString();
    const prepared = await prepareMysql(databaseUrl);
    if (prepared.unreachable) {
      fs.rmSync(tempDir, { recursive: true, force: true });
      return { ...report, skipped: prepared.unreachable };
    }
    report.database = `MariaDB/MySQL ${prepared.version}`;
    seedTarget = databaseUrl;
    dropDatabase = async () => {
      const mysql = require('mysql2/promise');
      const db = await mysql.createConnection({ uri: databaseUrl });
      await db.query(`DROP DATABASE IF EXISTS \`${prepared.database}\``);
      await db.end();
    };
  } else {
    seedTarget = path.join(tempDir, 'console.sqlite');
    databaseUrl = `sqlite:${seedTarget}`;
    report.database = 'SQLite (temp file, WAL)';
  }
  const jwtSecret = `jwt-${randomBytes(32).toString('base64url')}`;
  const env = serverEnv({
    port: PORTS[driver],
    databaseUrl,
    mediaDir: path.join(tempDir, 'media'),
    sdkSecret: `sdk-${randomBytes(32).toString('base64url')}`,
    jwtSecret,
    rtcAppId: '1400000001',
    rtcSecret: `rtc-${randomBytes(24).toString('base64url')}`,
  });
  // No background job reads or writes while the pages are timed.
  Object.assign(env, { ANALYTICS_JOB: 'false' });
  let server = null;
  const start = async () => {
    server = new Server({ name: `console-${driver}`, port: PORTS[driver], env });
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
  console.log(`\n== console, ${driver}: ${report.database} ==`);
  let db = null;
  try {
    // ---- schema (the server migrates), a viewer, then the seed with the server stopped
    await start();
    const password = `bench-${randomBytes(12).toString('hex')}`;
    const main = process.env.BENCH_MAIN ? path.resolve(process.env.BENCH_MAIN) : path.join(ROOT, 'dist', 'main.js');
    execFileSync(
      process.execPath,
      [path.join(path.dirname(main), 'cli', 'admin-create.js'), '--username', 'bench', '--role', 'viewer'],
      { cwd: ROOT, env: { ...env, ADMIN_PASSWORD: password }, stdio: 'ignore' },
    );
    await stop();
    db = await openSeedDb(driver, seedTarget);
    const now = Date.now();
    const began = Date.now();
    const seeded = await seedConsole(db, own, now);
    report.seed = {
      seconds: Math.round((Date.now() - began) / 100) / 10,
      ...seeded.timings,
      reportTargets: seeded.reportTargets,
      pendingReports: seeded.pendingReports,
      bigGroupRecords: seeded.bigGroup.records,
    };
    console.log(
      `  seeded in ${report.seed.seconds} s: ${own.users.toLocaleString('en')} users, ${own.groups.toLocaleString('en')} groups, ` +
        `${own.reports.toLocaleString('en')} reports against ${seeded.reportTargets.toLocaleString('en')} targets, ` +
        `${own.clientErrors.toLocaleString('en')} client errors (${seeded.bigGroup.records.toLocaleString('en')} in one group)`,
    );

    // ---- the pages
    await start();
    const login = await fetch(`${server.baseUrl}/app/admin/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Admin-CSRF': '1' },
      body: JSON.stringify({ username: 'bench', password }),
    });
    const cookie = (login.headers.get('set-cookie') || '').split(';')[0];
    if ((await login.json()).code !== 0) throw new Error('console bench: admin login failed');
    const get = async (route) => {
      const body = await (await fetch(server.baseUrl + route, { headers: { Cookie: cookie } })).json();
      return body;
    };
    const cursors = await cursorMinter({ db, main, jwtSecret, get });
    const cases = await consoleCases({ db, seeded, get, cursors });
    report.skippedCases = cases.skipped;
    report.cases = {};
    for (const c of cases.list) {
      const times = [];
      let items = null;
      for (let i = 0; i < WARMUP + own.requests; i++) {
        const t0 = process.hrtime.bigint();
        const body = await get(c.route);
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (body.code !== 0) throw new Error(`${c.route}: ${JSON.stringify(body).slice(0, 200)}`);
        if (i >= WARMUP) times.push(ms);
        if (i === 0) items = c.count(body.data);
      }
      times.sort((a, b) => a - b);
      report.cases[c.name] = {
        route: c.route.replace(/cursor=[^&]+/, 'cursor=…'),
        items,
        p50: round1(percentile(times, 50)),
        p95: round1(percentile(times, 95)),
        max: round1(times[times.length - 1]),
      };
      const r = report.cases[c.name];
      console.log(`  ${c.name}: p50 ${r.p50} ms, p95 ${r.p95} ms, max ${r.max} ms (${items} items)`);
    }
  } catch (error) {
    report.failed = error.message;
    console.log(`  failed: ${error.message}`);
    if (server) for (const line of server.logLines.slice(-10)) console.log(`  server: ${line}`);
  } finally {
    await stop().catch(() => undefined);
    if (db) await db.close();
    if (!settings.keepDb) {
      await dropDatabase();
      fs.rmSync(tempDir, { recursive: true, force: true });
    }
  }
  return report;
}

/**
 * Cursors of the Users list at any position: signed by the build's CursorCodec with the server's
 * secret, for the signed-in account, bound to the list's filters as the server binds them. Checked
 * against the server's own next_cursor of a first page before use.
 */
async function cursorMinter({ db, main, jwtSecret, get }) {
  const { CursorCodec } = require(path.join(path.dirname(main), 'common', 'pagination', 'cursor.js'));
  const codec = new CursorCodec(jwtSecret);
  const [account] = await db.all("SELECT id FROM admin_accounts WHERE username = 'bench'");
  const filters = (params) => ({
    q: params.q,
    sort: params.sort ?? 'newest',
    disabled: params.disabled,
    online: params.online,
    open_reports: params.open_reports,
  });
  const mint = (params, position) => codec.encode(String(account.id), 'admin.users.browse', filters(params), position);
  for (const sort of ['newest', 'name', 'last_active']) {
    const page = await get(`/app/admin/users?${query({ sort })}`);
    if (page.code !== 0 || !page.data.next_cursor) throw new Error(`users list (${sort}): no next_cursor`);
    const last = page.data.items[page.data.items.length - 1];
    const [row] = await db.all('SELECT id, nickname, last_active_at FROM users WHERE external_id = ?', [last.user_id]);
    const minted = mint({ sort }, positionOf(sort, row));
    if (minted !== page.data.next_cursor)
      throw new Error(
        `users list (${sort}): the minted cursor differs from the server's next_cursor (update bench/lib/console.js)`,
      );
  }
  return { mint };
}

/** As positionOfUser in src/users/user-browse.ts. */
function positionOf(sort, row) {
  const id = String(row.id);
  if (sort === 'last_active') return { id, a: row.last_active_at === null ? null : Number(row.last_active_at) };
  if (sort === 'name') return { id, n: row.nickname };
  return { id };
}

/** The timed requests; the Groups list's last_active order only where this build accepts it. */
async function consoleCases({ db, seeded, get, cursors }) {
  const items = (data) => data.items.length;
  const list = [];
  const skipped = [];
  const add = (name, route, count = items) => list.push({ name, route, count });
  const middle = async (sql) => (await db.all(sql))[0];
  const users = (params) => `/app/admin/users?${query(params)}`;
  const usersAt = (params, row) => users({ ...params, cursor: cursors.mint(params, positionOf(params.sort, row)) });

  const [{ n: userCount }] = await db.all('SELECT COUNT(*) AS n FROM users');
  const [{ n: activeCount }] = await db.all('SELECT COUNT(*) AS n FROM users WHERE last_active_at IS NOT NULL');
  const half = (n) => Math.floor(Number(n) / 2);
  add('users: newest', users({ sort: 'newest' }));
  add(
    'users: newest, halfway',
    usersAt(
      { sort: 'newest' },
      await middle(`SELECT id FROM users ORDER BY id DESC LIMIT 1 OFFSET ${half(userCount)}`),
    ),
  );
  add('users: name', users({ sort: 'name' }));
  add(
    'users: name, halfway',
    usersAt(
      { sort: 'name' },
      await middle(`SELECT id, nickname FROM users ORDER BY nickname, id LIMIT 1 OFFSET ${half(userCount)}`),
    ),
  );
  add('users: last_active', users({ sort: 'last_active' }));
  add(
    'users: last_active, halfway',
    usersAt(
      { sort: 'last_active' },
      await middle(
        `SELECT id, last_active_at FROM users WHERE last_active_at IS NOT NULL ORDER BY last_active_at DESC, id DESC LIMIT 1 OFFSET ${half(activeCount)}`,
      ),
    ),
  );
  add(
    'users: last_active, never-active phase',
    usersAt(
      { sort: 'last_active' },
      await middle(
        `SELECT id, last_active_at FROM users WHERE last_active_at IS NULL ORDER BY id DESC LIMIT 1 OFFSET ${half(Number(userCount) - Number(activeCount))}`,
      ),
    ),
  );
  add('users: disabled=true, newest', users({ disabled: 'true' }));
  add('users: disabled=false, last_active', users({ disabled: 'false', sort: 'last_active' }));
  add(`users: q=${SEARCH_PREFIX} (nickname prefix), name`, users({ q: SEARCH_PREFIX, sort: 'name' }));
  add(`users: q=${SEARCH_NO_MATCH} (matches none), name`, users({ q: SEARCH_NO_MATCH, sort: 'name' }));

  for (const sort of ['newest', 'name', 'last_active']) {
    const first = await get(`/app/admin/groups?${query({ sort })}`);
    if (first.code !== 0) {
      skipped.push(`groups: ${sort} (this build answers ${first.code}: ${first.msg})`);
      continue;
    }
    add(`groups: ${sort}`, `/app/admin/groups?${query({ sort })}`);
    if (first.data.next_cursor)
      add(`groups: ${sort}, page 2`, `/app/admin/groups?${query({ sort, cursor: first.data.next_cursor })}`);
  }

  for (const status of ['open', 'all'])
    for (const sort of ['count', 'latest']) add(`report targets: ${status}, ${sort}`, reportTargets({ status, sort }));
  const targets = await get(reportTargets({ status: 'open', sort: 'count' }));
  if (targets.code === 0 && targets.data.next_cursor)
    add(
      'report targets: open, count, page 2',
      reportTargets({ status: 'open', sort: 'count', cursor: targets.data.next_cursor }),
    );

  const errors = (params) => `/app/admin/client-errors?${query(params)}`;
  add('client errors: last_seen', errors({}));
  add('client errors: occurrences', errors({ sort: 'occurrences' }));
  add('client errors: users', errors({ sort: 'users' }));
  add('client errors: users, severity=fatal', errors({ sort: 'users', severity: 'fatal' }));
  add('client errors: build_id filter', errors({ build_id: '7.3' }));
  const ref = {
    error_code: seeded.bigGroup.error_code,
    platform: seeded.bigGroup.platform,
    build_id: seeded.bigGroup.build_id,
  };
  add(
    `client errors: group page (${seeded.bigGroup.records.toLocaleString('en')} records)`,
    `/app/admin/client-errors/group?${query(ref)}`,
    (data) => data.per_day.length,
  );
  add('client errors: occurrences of that group', `/app/admin/client-errors/occurrences?${query(ref)}`);
  const occurrences = await get(`/app/admin/client-errors/occurrences?${query(ref)}`);
  if (occurrences.code === 0 && occurrences.data.next_cursor)
    add(
      'client errors: occurrences, page 2',
      `/app/admin/client-errors/occurrences?${query({ ...ref, cursor: occurrences.data.next_cursor })}`,
    );
  return { list, skipped };
}

const reportTargets = (params) => `/app/admin/reports/targets?${query(params)}`;

function printConsole(reports) {
  for (const r of reports) {
    console.log(`\n-- console, ${r.driver} --`);
    if (r.skipped) {
      console.log(`  skipped: ${r.skipped}`);
      continue;
    }
    if (r.seed)
      console.log(
        `  ${r.database}; seeded in ${r.seed.seconds} s (users ${r.seed.users} s, groups ${r.seed.groups} s, reports ${r.seed.reports} s, client errors ${r.seed.clientErrors} s, analyze ${r.seed.analyze} s)`,
      );
    if (r.failed) console.log(`  FAILED: ${r.failed}`);
    for (const [name, c] of Object.entries(r.cases || {}))
      console.log(`  ${name}: p50 ${c.p50} ms, p95 ${c.p95} ms, max ${c.max} ms (${c.items} items)`);
    for (const note of r.skippedCases || []) console.log(`  not run: ${note}`);
  }
}

const consoleInvalid = (reports) => reports.some((r) => r.failed);

module.exports = { runConsole, printConsole, consoleInvalid };
