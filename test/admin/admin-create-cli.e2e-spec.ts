// `npm run admin:create` as a process: --help prints the usage and exits 0, an unknown flag is
// named. Run from the TypeScript source (the build is not needed for argument handling).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

function run(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(
    process.execPath,
    [require.resolve('ts-node/dist/bin-transpile.js'), join(ROOT, 'src/cli/admin-create.ts'), ...args],
    // No DATABASE_URL and no password: neither --help nor a refused flag may get that far.
    { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' }, timeout: 120_000 },
  );
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('admin:create on the command line', () => {
  it('prints the usage for --help and exits 0', () => {
    const result = run('--help');
    expect(result).toEqual({
      status: 0,
      stdout: expect.stringMatching(/^usage: npm run admin:create -- /),
      stderr: '',
    });
    expect(result.stdout).toContain('--role owner|moderator|viewer');
    expect(result.stdout).toContain('ADMIN_PASSWORD');
  }, 150_000);

  it('names an unknown flag and exits 1', () => {
    const result = run('--username', 'alice', '--frob');
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^admin:create: unknown argument --frob; usage: /);
    expect(result.stdout).toBe('');
  }, 150_000);
});
