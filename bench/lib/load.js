'use strict';

/**
 * One autocannon run with reply checking. Every reply is checked cheaply (HTTP status, the
 * leading `{"code":0` and the case's optional `check` of the raw body); a sample of replies is
 * parsed and checked in depth by the case's `verify(data, context)`. Failures are counted and a
 * few are kept as samples.
 */

const autocannon = require('autocannon');

const MAX_SAMPLES = 5;
const DEEP_CHECK_EVERY = 50; // plus the first 10 replies of a run

function newStats() {
  return {
    responses: 0,
    non2xx: 0,
    badCode: 0,
    badShape: 0,
    deepChecked: 0,
    connErrors: 0,
    statusCodes: {},
    samples: [],
  };
}

function keepSample(stats, kind, status, body, context) {
  if (stats.samples.length >= MAX_SAMPLES) return;
  const sample = { kind, status, body: typeof body === 'string' ? body.slice(0, 600) : String(body) };
  if (context && context.sent) sample.sent = context.sent;
  stats.samples.push(sample);
}

/**
 * @param {object} options
 * @param {string} options.url       base URL of the server
 * @param {object} options.request   autocannon request: method, path, headers, body and/or setupRequest(req, context)
 * @param {'envelope'|'provider'} options.reply  `{code:0,...}` envelope or the exact provider reply `{"code":0}`
 * @param {(data: any, context: object) => string|null} [options.verify]  deep check of the envelope's data
 * @param {(body: string, context: object) => string|null} [options.check]  cheap check of every code-0 reply's raw body
 * @param {(status: number, body: string, context: object) => void} [options.afterResponse]  called with every reply first (a case's own bookkeeping)
 * @param {(ms: number) => void} [options.onLatency]  called with every reply's response time (percentiles autocannon does not report)
 * @param {number} options.duration  seconds
 * @param {number} [options.amount]  a fixed number of requests instead of a duration
 * @param {number} [options.overallRate]  requests/s over all connections (default: as fast as replies come)
 * @param {number} options.connections
 */
async function runLoad({
  url,
  request,
  reply,
  verify,
  check,
  afterResponse,
  onLatency,
  duration,
  amount,
  overallRate,
  connections,
}) {
  const stats = newStats();

  const onResponse = (status, body, context) => {
    if (afterResponse) afterResponse(status, body, context);
    stats.responses++;
    stats.statusCodes[status] = (stats.statusCodes[status] || 0) + 1;
    if (status < 200 || status > 299) {
      stats.non2xx++;
      keepSample(stats, 'non-2xx', status, body, context);
      return;
    }
    if (reply === 'provider') {
      if (body !== '{"code":0}') {
        stats.badCode++;
        keepSample(stats, 'reply is not exactly {"code":0}', status, body, context);
      }
      return;
    }
    if (!body.startsWith('{"code":0,')) {
      stats.badCode++;
      keepSample(stats, 'code != 0', status, body, context);
      return;
    }
    if (check) {
      const problem = check(body, context || {});
      if (problem) {
        stats.badShape++;
        keepSample(stats, `bad reply: ${problem}`, status, body, context);
        return;
      }
    }
    if (verify && (stats.responses <= 10 || stats.responses % DEEP_CHECK_EVERY === 0)) {
      stats.deepChecked++;
      let problem;
      try {
        const json = JSON.parse(body);
        problem = json.code !== 0 ? `code ${json.code}` : verify(json.data, context || {});
      } catch (error) {
        problem = `unparseable reply: ${error.message}`;
      }
      if (problem) {
        stats.badShape++;
        keepSample(stats, `bad reply: ${problem}`, status, body, context);
      }
    }
  };

  const instance = autocannon({
    url,
    connections,
    duration,
    ...(amount ? { amount } : {}),
    ...(overallRate ? { overallRate } : {}),
    pipelining: 1,
    timeout: 10,
    requests: [{ ...request, onResponse }],
  });
  instance.on('reqError', (error) => {
    stats.connErrors++;
    if (stats.samples.length < MAX_SAMPLES)
      stats.samples.push({ kind: 'request error', status: null, body: String(error && error.message) });
  });
  if (onLatency) instance.on('response', (_client, _status, _bytes, responseTime) => onLatency(responseTime));
  const result = await instance;
  return { result, stats };
}

/** Errors of a run: transport errors, timeouts, non-2xx replies, non-zero codes and bad shapes. */
function errorCount(result, stats) {
  return result.errors + stats.non2xx + stats.badCode + stats.badShape;
}

module.exports = { runLoad, errorCount };
