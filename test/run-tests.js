#!/usr/bin/env node
// The README's `npm test`: unit specs, then the e2e suite on SQLite and, when
// TEST_DATABASE_URL points at MySQL/MariaDB, on it too, then the fault tests (the built service
// against a private mariadbd and redis-server that they freeze and kill; only when those
// programs are installed), then the browser tests of the admin console (Debian's chromium,
// installed with apt-get when missing). Ends with one "N passed, N failed" line.
// The Web SDK (sdk/web) is built (`npm run sdk:build`: ESM, CommonJS, declarations, the
// script-tag bundle and its 40 KB min+gzip budget; then TypeDoc) and unit-tested with the unit
// phase; its scenario specs (test/sdk) and its packaging specs in Node (test/package: npm pack,
// install, import and require) run with the e2e suites, its packaging specs in Chromium with the
// browser tests.
// --e2e-only: the e2e suite alone; --faults-only: the fault tests alone.
const { spawnSync } = require('node:child_process');
const { existsSync, mkdtempSync, readFileSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { delimiter, join } = require('node:path');

const args = process.argv.slice(2);
const e2eOnly = args.includes('--e2e-only');
const faultsOnly = args.includes('--faults-only');
const jestArgs = args.filter((a) => a !== '--e2e-only' && a !== '--faults-only');
const dir = mkdtempSync(join(tmpdir(), 'im-tests-'));
const totals = { passed: 0, failed: 0, skipped: 0 };
let exitCode = 0;

function run(label, config, env) {
  const out = join(dir, `${label}.json`);
  const result = spawnSync(
    process.execPath,
    [require.resolve('jest/bin/jest'), '--config', config, '--json', `--outputFile=${out}`, ...jestArgs],
    {
      stdio: 'inherit',
      env: { ...process.env, ...env },
    },
  );
  let summary = null;
  try {
    summary = JSON.parse(readFileSync(out, 'utf8'));
  } catch {
    // jest did not get as far as writing results
  }
  if (summary) {
    totals.passed += summary.numPassedTests;
    totals.failed += summary.numFailedTests;
    totals.skipped += summary.numPendingTests + summary.numTodoTests;
    console.log(
      `${label}: ${summary.numPassedTests} passed, ${summary.numFailedTests} failed (${summary.numTotalTestSuites} suites)`,
    );
  }
  if (result.status !== 0 || !summary) {
    exitCode = 1;
    if (!summary) totals.failed += 1;
  }
}

const onPath = (command) =>
  (process.env.PATH || '').split(delimiter).some((dir) => dir && existsSync(join(dir, command)));

/** The fault tests run `node dist/main.js`, so dist is built from the current sources first. */
function runFaults() {
  const missing = ['mariadbd', 'mariadb-install-db', 'redis-server'].filter((command) => !onPath(command));
  if (missing.length) {
    const why = `${missing.join(', ')} not on PATH; the fault tests start their own MariaDB and Redis`;
    // CI must not pass on a machine that silently cannot run them.
    if (process.env.REQUIRE_FAULT_TESTS === '1') {
      console.log(`faults: failed (${why})`);
      totals.failed += 1;
      exitCode = 1;
      return;
    }
    console.log(`faults: skipped (${why})`);
    return;
  }
  const build = spawnSync(process.execPath, [require.resolve('@nestjs/cli/bin/nest.js'), 'build'], {
    stdio: 'inherit',
  });
  if (build.status !== 0) {
    console.log('faults: failed (npx nest build failed)');
    totals.failed += 1;
    exitCode = 1;
    return;
  }
  run('faults', 'test/jest-faults.config.js', {});
}

/** The Web SDK's builds (within the bundle's size budget) and its TypeDoc pages must build from the current sources. */
function runSdkBuild() {
  for (const [what, args] of [
    ['build', [join('sdk', 'web', 'scripts', 'build.mjs')]],
    [
      'docs',
      [join('node_modules', 'typedoc', 'bin', 'typedoc'), '--options', 'sdk/web/typedoc.json', '--logLevel', 'Warn'],
    ],
  ]) {
    const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
    if (result.status !== 0) {
      console.log(`sdk ${what}: failed`);
      totals.failed += 1;
      exitCode = 1;
    }
  }
}

if (!faultsOnly) {
  if (!e2eOnly) {
    run('unit', 'jest.config.js', {});
    runSdkBuild();
    run('sdk-unit', 'sdk/web/jest.config.cjs', {});
  }
  run('e2e-sqlite', 'test/jest-e2e.config.js', { E2E_DATABASE_URL: 'sqlite' });
  if (process.env.TEST_DATABASE_URL) {
    run('e2e-mysql', 'test/jest-e2e.config.js', { E2E_DATABASE_URL: process.env.TEST_DATABASE_URL });
  } else {
    console.log(
      'e2e-mysql: skipped (set TEST_DATABASE_URL=mysql://user:pass@host:3306/db to run the suite on MySQL/MariaDB too)',
    );
  }
}
if (!e2eOnly) runFaults();
if (!e2eOnly && !faultsOnly) run('browser', 'test/jest-browser.config.js', { E2E_DATABASE_URL: 'sqlite' });
rmSync(dir, { recursive: true, force: true });
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(exitCode);
