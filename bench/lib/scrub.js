'use strict';

/**
 * The scrubber on hostile input (section `scrub`): every input of
 * src/common/scrubbing/hostile-inputs.ts, at the 32 KB stack-trace limit, scrubbed in process
 * from the production build. Reports the slowest of RUNS passes per input against the target;
 * a backtracking pattern shows as one input far above the others. The unit specs only check
 * that the scrubber finishes on these inputs.
 */
const path = require('node:path');

const TARGET_MS = 200;
const RUNS = 5;

function runScrub(root) {
  const { Scrubber } = require(path.join(root, 'dist', 'common', 'scrubbing', 'scrub.js'));
  const { HOSTILE_SCRUB_INPUTS } = require(path.join(root, 'dist', 'common', 'scrubbing', 'hostile-inputs.js'));
  const scrubber = new Scrubber(['host-secret-value-0123456789abcdef', 'jwt-secret-value-abcdefghijklmnopqrstuvwxyz']);
  const inputs = HOSTILE_SCRUB_INPUTS.map((input, index) => {
    let worst = 0;
    for (let run = 0; run < RUNS; run++) {
      const started = process.hrtime.bigint();
      scrubber.text(input);
      worst = Math.max(worst, Number(process.hrtime.bigint() - started) / 1e6);
    }
    return { index, sample: JSON.stringify(input.slice(0, 24)), bytes: Buffer.byteLength(input), worstMs: worst };
  });
  const slowest = inputs.reduce((a, b) => (b.worstMs > a.worstMs ? b : a));
  return { targetMs: TARGET_MS, runs: RUNS, inputs, slowest, met: slowest.worstMs <= TARGET_MS };
}

function printScrub(result) {
  console.log(`\n-- scrubber on hostile 32 KB input (${result.inputs.length} inputs, worst of ${result.runs} runs)`);
  const sorted = [...result.inputs].sort((a, b) => b.worstMs - a.worstMs).slice(0, 5);
  for (const input of sorted)
    console.log(`   ${input.worstMs.toFixed(1).padStart(7)} ms  ${input.bytes} bytes  ${input.sample}…`);
  console.log(
    `   slowest ${result.slowest.worstMs.toFixed(1)} ms (target ≤ ${result.targetMs} ms): ${result.met ? 'met' : 'MISSED'}`,
  );
}

module.exports = { runScrub, printScrub };
