#!/usr/bin/env node
// The browser bundle's budget: at most 40 KB (40 × 1024 bytes) minified and gzipped, with
// socket.io-client inside, as a page pays for it on the wire. Run by scripts/build.mjs after each
// build, so `npm run sdk:build` (and the test run, which builds the SDK) fails above it; alone:
// `node sdk/web/scripts/check-size.mjs`. Over budget, it lists the largest inputs of the bundle.
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export const LIMIT_BYTES = 40 * 1024;

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

/** Prints the bundle's sizes; false (after saying why) when its gzipped size is over the limit. */
export function checkSize(file, metafile) {
  const body = readFileSync(file);
  // Level 9: what a CDN or a static server configured for compression sends.
  const gzipped = gzipSync(body, { level: 9 }).length;
  const name = relative(process.cwd(), file);
  console.log(
    `${name}: ${kb(body.length)} minified, ${kb(gzipped)} min+gzip (${gzipped} bytes; limit ${kb(LIMIT_BYTES)})`,
  );
  if (gzipped <= LIMIT_BYTES) return true;
  console.error(`${name} is ${gzipped - LIMIT_BYTES} bytes over the ${kb(LIMIT_BYTES)} min+gzip budget`);
  const inputs = metafile?.outputs[Object.keys(metafile.outputs).find((out) => out.endsWith('.js'))]?.inputs;
  if (inputs) {
    console.error('largest inputs (minified bytes, before gzip):');
    for (const [path, { bytesInOutput }] of Object.entries(inputs)
      .sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput)
      .slice(0, 15))
      console.error(`  ${String(bytesInOutput).padStart(7)}  ${path}`);
  }
  return false;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'im-sdk.min.js');
  if (!checkSize(file)) process.exitCode = 1;
}
