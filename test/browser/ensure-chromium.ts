import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * Installs Debian's chromium when it is missing (never a downloaded browser build). Where it
 * cannot be installed the browser specs skip with the reason, unless REQUIRE_BROWSER_TESTS=1
 * (CI), where that is a failure.
 */
export default function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  const steps = [
    ['apt-get', ['update', '-qq']],
    ['apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium']],
  ] as const;
  for (const [command, args] of steps) {
    const result = spawnSync(command, [...args], {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    if (result.status !== 0) break;
  }
  if (existsSync(CHROMIUM)) return;
  const why = `Debian's chromium is not installed and apt-get could not install it (${CHROMIUM} missing)`;
  if (process.env.REQUIRE_BROWSER_TESTS === '1') throw new Error(why);
  // eslint-disable-next-line no-console
  console.log(`browser tests: skipped (${why})`);
}
