// What the packaging specs share: the Web SDK built from the current sources, packed with
// `npm pack` as it would be published, and installed from the tarball into a scratch project the
// way an application installs it; the token reply of the host endpoint; child processes run with
// a clean environment.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestApp, hostAuth } from '../helpers/test-app';

const ROOT = join(__dirname, '..', '..');
export const SDK_DIR = join(ROOT, 'sdk', 'web');
export const PACKAGE_NAME = '@im-sdk/web';

/** What the build reads: a change to any of them makes dist stale. */
const BUILD_INPUTS = [
  join(SDK_DIR, 'src'),
  join(SDK_DIR, 'scripts'),
  join(SDK_DIR, 'package.json'),
  join(SDK_DIR, 'tsconfig.json'),
  join(SDK_DIR, 'tsconfig.cjs.json'),
  join(ROOT, 'src', 'contract'),
];
/** One file of each build (ES modules, CommonJS, browser bundle). */
const BUILD_OUTPUTS = ['dist/sdk/web/src/index.js', 'dist/cjs/sdk/web/src/index.js', 'dist/im-sdk.min.js'].map((f) =>
  join(SDK_DIR, f),
);

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
}

/**
 * npm passes its configuration to scripts as npm_* variables (npm_config_local_prefix among
 * them): inherited from `npm test`, they would make the npm run here act on the repository's
 * root instead of the scratch project.
 */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && key !== 'INIT_CWD') env[key] = value;
  }
  return { ...env, NO_UPDATE_NOTIFIER: '1', npm_config_update_notifier: 'false', ...extra };
}

export interface Run {
  stdout: string;
  stderr: string;
}

/** Runs a program to its end; rejects with its output when it fails. */
export function run(
  file: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<Run> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      {
        cwd: options.cwd,
        env: cleanEnv(options.env),
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${file} ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`));
        else resolve({ stdout, stderr });
      },
    );
  });
}

/** Builds the SDK (`npm run sdk:build`'s script) unless dist is newer than everything it is built from. */
export async function buildSdkIfStale(): Promise<void> {
  const inputs = Math.max(...BUILD_INPUTS.map(newestMtime));
  const outputs = Math.min(...BUILD_OUTPUTS.map(newestMtime));
  if (outputs > inputs) return;
  await run(process.execPath, [join(SDK_DIR, 'scripts', 'build.mjs')], { cwd: ROOT, timeoutMs: 300_000 });
}

export interface PackageManifest {
  name: string;
  main: string;
  module: string;
  types: string;
  unpkg: string;
  jsdelivr: string;
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
}

export interface InstalledSdk {
  /** The scratch project; files written here resolve `@im-sdk/web` from its node_modules. */
  dir: string;
  /** Every path in the tarball (without the `package/` prefix). */
  packedFiles: string[];
  /** The installed package's folder and manifest. */
  packageDir: string;
  manifest: PackageManifest;
  write(name: string, content: string): string;
  remove(): void;
}

/**
 * `npm pack` of sdk/web (scripts ignored: the build above is prepack's), then
 * `npm install <tarball>` into a new project. socket.io-client and its dependencies come from
 * npm's cache, filled by `npm ci`.
 */
export async function installPackedSdk(): Promise<InstalledSdk> {
  await buildSdkIfStale();
  const dir = mkdtempSync(join(tmpdir(), 'im-sdk-package-'));
  try {
    const packed = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], {
      cwd: SDK_DIR,
    });
    const [tarball] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    writeFileSync(
      join(dir, 'package.json'),
      `${JSON.stringify({ name: 'im-sdk-scratch', version: '1.0.0', private: true }, null, 2)}\n`,
    );
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `./${tarball.filename}`], {
      cwd: dir,
      timeoutMs: 300_000,
    });
    const packageDir = join(dir, 'node_modules', ...PACKAGE_NAME.split('/'));
    return {
      dir,
      packedFiles: tarball.files.map((f) => f.path),
      packageDir,
      manifest: JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as PackageManifest,
      write(name, content) {
        const path = join(dir, name);
        writeFileSync(path, content);
        return path;
      },
      remove: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** The host endpoint's reply for `userId`: what a host backend hands its page for `authProvider`. */
export async function tokenReply(t: TestApp, userId: string): Promise<unknown> {
  const response = await t.http
    .post('/app/sdk/token')
    .set(...hostAuth())
    .send({ user_id: userId, nickname: `Pkg ${userId.slice(-4)}` });
  if (response.body?.code !== 0) throw new Error(`token issue failed: ${JSON.stringify(response.body)}`);
  return response.body;
}
