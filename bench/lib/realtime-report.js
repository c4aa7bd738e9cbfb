'use strict';

/** Targets and printed output of the real-time section (bench/lib/realtime.js). */

const os = require('node:os');

/** Targets of issue 11, on MariaDB. */
const TARGETS = { deliveryRatio: 0.5, e2eP99OverHttpP99: 2, rssPerSocketKb: 15, resumeMs: 200 };

const fmt = (value, digits = 0) => (value === null || value === undefined ? 'n/a' : Number(value).toFixed(digits));

/** One line per measured phase, as it finishes. */
function printPhase(name, r) {
  console.log(
    `  ${name}: ${r.deliveriesPerSecond} deliveries/s (group ${r.deliveriesPerSecondByKind.group}, direct ${r.deliveriesPerSecondByKind.direct}), ${r.sendsPerSecond} sends/s; ` +
      `send→receive p50 ${fmt(r.latency.all.p50, 1)} p99 ${fmt(r.latency.all.p99, 1)} ms; HTTP p50 ${fmt(r.http.all.p50, 1)} p99 ${fmt(r.http.all.p99, 1)} ms; ` +
      `cpu server ${fmt(r.cpu.serverPct)}% db ${fmt(r.cpu.dbPct)}% clients ${fmt(r.cpu.clientPct)}% other ${fmt(r.cpu.otherPct)}%`,
  );
}

function fanoutRows(fanout) {
  const rows = [];
  for (const s of fanout.scenarios) {
    for (const [server, r] of [
      ['service', s.service],
      ['bare socket.io', s.bare],
    ]) {
      rows.push([
        server === 'service' ? `${s.name} (${s.groupSenders}g+${s.directSenders}d)` : '',
        server,
        String(r.deliveriesPerSecond),
        fmt(r.sendsPerSecond, 0),
        fmt(r.latency.all.p50, 1),
        fmt(r.latency.all.p99, 1),
        fmt(r.http.all.p50, 1),
        fmt(r.http.all.p99, 1),
        server === 'service' ? fmt(s.ratio, 3) : '',
        server === 'service' ? fmt(s.e2eOverHttpP99, 2) : '',
        fmt(r.serverCpuUsPerDelivery, 1),
        `${fmt(r.cpu.serverPct)}%`,
        `${fmt(r.cpu.dbPct)}%`,
        `${fmt(r.cpu.clientPct)}%`,
        `${fmt(r.cpu.otherPct)}%`,
      ]);
    }
  }
  return rows;
}

function printRealtime(report, table) {
  console.log(`\n### realtime: ${report.database || ''}`);
  if (report.skipped) return console.log(`skipped (${report.skipped})`);
  if (report.failed) console.log(`FAILED: ${report.failed}`);
  const s = report.settings;
  const f = report.fanout;
  if (f) {
    console.log(
      `fan-out: socket.io ${report.socketIo.version}${report.socketIo.sameAsService ? " (the service's own copy)" : ' (NOT the copy the service loads)'}; ${s.fanoutSockets} sockets (websocket) per server, a group of ${s.groupSize} and ${s.pairs} one-to-one pairs; g group + d pair senders, each in a closed loop ` +
        `(HTTP send, wait for every delivery); ${s.warmupS}s warm-up + ${s.durationS}s measured per row; message.new ${f.payloadBytes.group} B (group), ${f.payloadBytes.directPeer} B (direct)`,
    );
    const headers = [
      'scenario',
      'server',
      'deliv/s',
      'sends/s',
      'e2e p50',
      'e2e p99',
      'http p50',
      'http p99',
      'ratio',
      'e2e/http p99',
      'server µs/deliv',
      'server cpu',
      'db cpu',
      'client cpu',
      'other',
    ];
    console.log(
      table(
        headers,
        fanoutRows(f),
        headers.map((_, i) => i > 1),
      ),
    );
    console.log(
      `(latencies in ms; e2e = start of the HTTP send → arrival at the receiving socket; ratio = service ÷ bare deliveries/s; ` +
        `server µs/deliv = server CPU per delivery, sends included; cpu in % of one core, ${os.cpus().length} cores; clients run in one process apart from the servers)`,
    );
    console.log(
      `deliveries/s ratio service ÷ bare socket.io (${f.headline}): ${fmt(f.ratio, 3)} (target >= ${TARGETS.deliveryRatio}: ${f.ratioMet ? 'met' : 'NOT MET'})`,
    );
    console.log(
      `service send→receive p99 ÷ HTTP send p99 (${f.headline}): ${fmt(f.e2eOverHttpP99, 2)} (target <= ${TARGETS.e2eP99OverHttpP99}: ${f.e2eMet ? 'met' : 'NOT MET'})`,
    );
  }
  const m = report.memory;
  if (m) {
    const steps = (mem) => mem.steps.map((st) => `${st.rssMb} MB at ${st.sockets}`).join(', ');
    console.log(
      `memory: service RSS ${steps(m)} idle sockets → ${fmt(m.rssPerSocketKb, 2)} KB per socket (target <= ${TARGETS.rssPerSocketKb} KB: ${m.met ? 'met' : 'NOT MET'}); ` +
        `heap ${fmt(m.heapPerSocketKb, 2)} KB per socket`,
    );
    if (m.bare)
      console.log(
        `memory, bare socket.io in the same run: RSS ${steps(m.bare)} → ${fmt(m.bare.rssPerSocketKb, 2)} KB per socket; heap ${fmt(m.bare.heapPerSocketKb, 2)} KB per socket`,
      );
  }
  const r = report.resume;
  if (r) {
    console.log(
      `resume of ${r.events} missed events: io() → connection.ready ${r.attempts.map((a) => a.ms).join(', ')} ms (first ${r.firstMs}, median ${r.medianMs}, max ${r.maxMs}; ` +
        `target median <= ${TARGETS.resumeMs} ms: ${r.met ? 'met' : 'NOT MET'}); first replayed event after ${r.attempts.map((a) => a.firstEventMs).join(', ')} ms; ` +
        `replayed ${r.attempts.map((a) => a.replayed).join(', ')}`,
    );
  }
  for (const problem of report.problems) console.log(`PROBLEM: ${problem}`);
}

/** Targets missed (for BENCH_ENFORCE), and whether the numbers are invalid. */
function realtimeVerdict(report) {
  if (report.skipped) return { invalid: false, missed: [] };
  const missed = [];
  if (report.fanout && !report.fanout.ratioMet) missed.push('realtime deliveries ratio');
  if (report.fanout && !report.fanout.e2eMet) missed.push('realtime send→receive p99');
  if (report.memory && !report.memory.met) missed.push('realtime RSS per socket');
  if (report.resume && !report.resume.met) missed.push('realtime resume time');
  return { invalid: Boolean(report.failed) || report.problems.length > 0, missed };
}

module.exports = { TARGETS, printPhase, printRealtime, realtimeVerdict };
