#!/usr/bin/env node
// Builds every form of the Web SDK into sdk/web/dist (`npm run sdk:build` at the root, `npm run
// build` here):
// - dist/sdk/web/src: ES modules and declarations (tsc, tsconfig.json). The layout mirrors the
//   sources and the wire contract they are compiled with (dist/src/contract), so the declarations
//   need nothing outside the package. The demo (/demo) loads this build.
// - dist/cjs/sdk/web/src: the same as CommonJS (tsconfig.cjs.json), with a package.json that
//   says so to Node and TypeScript.
// - dist/im-sdk.min.js: one minified file for a <script> tag, socket.io-client included, that
//   defines the global `ImSdk`; held to a size budget (scripts/check-size.mjs).
// socket.io-client stays external in the module builds: it is a dependency of the package.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkSize } from './check-size.mjs';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

const BROWSER_BUNDLE = 'im-sdk.min.js';
const BROWSER_GLOBAL = 'ImSdk';

function tsc(project) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(root, project)], {
      stdio: 'inherit',
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tsc -p ${project} failed`))));
  });
}

async function browserBundle() {
  const esbuild = await import('esbuild');
  const outfile = join(dist, BROWSER_BUNDLE);
  const result = await esbuild.build({
    entryPoints: [join(root, 'src', 'index.ts')],
    outfile,
    bundle: true,
    format: 'iife',
    globalName: BROWSER_GLOBAL,
    platform: 'browser',
    target: ['es2020'],
    minify: true,
    sourcemap: 'linked',
    sourcesContent: true,
    legalComments: 'none',
    metafile: true,
    logLevel: 'warning',
  });
  return { outfile, metafile: result.metafile };
}

async function main() {
  rmSync(dist, { recursive: true, force: true });
  // The two compilations are independent; the bundle reads the sources, not their output.
  const [, , bundle] = await Promise.all([
    tsc('tsconfig.json'),
    tsc('tsconfig.cjs.json').then(() => {
      mkdirSync(join(dist, 'cjs'), { recursive: true });
      writeFileSync(join(dist, 'cjs', 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
    }),
    browserBundle(),
  ]);
  const ok = await checkSize(bundle.outfile, bundle.metafile);
  console.log(`sdk/web: built ${relative(process.cwd(), dist) || '.'} (ESM, CommonJS, ${BROWSER_BUNDLE})`);
  if (!ok) process.exitCode = 1;
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
