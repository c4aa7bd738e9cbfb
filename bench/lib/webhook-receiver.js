'use strict';

/**
 * The host endpoint of the webhooks benchmark, in a process of its own so it takes no CPU from
 * the load generator's event loop: plain node http with kept-alive connections, verifies each
 * delivery with the `standardwebhooks` package (an implementation independent of the service's),
 * answers 204 at once and records, per event, when it first arrived. Started by
 * bench/lib/webhooks.js with WEBHOOK_SECRET; reports its port over IPC, then answers:
 *   {cmd: 'waitFor', ids, timeoutMs}  once every ID has arrived (or the time is up): {missing, lastAt}
 *   {cmd: 'dump'}                     every event: [eventId, type, createdAt, receivedAt, copies] and the counters
 */

const http = require('node:http');
const { Webhook } = require('standardwebhooks');

const webhook = new Webhook(String(process.env.WEBHOOK_SECRET));
const events = new Map(); // event_id -> [type, createdAt, receivedAt, copies]
const counts = { requests: 0, badSignatures: 0, duplicates: 0, outOfOrder: 0 };
let lastPosition = -1n;
let waiter = null; // { ids: Set, resolve }

function settleWaiter() {
  if (!waiter) return;
  for (const id of waiter.ids) if (!events.has(id)) return;
  waiter.resolve();
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const receivedAt = Date.now();
    counts.requests++;
    let event;
    try {
      event = webhook.verify(Buffer.concat(chunks).toString('utf8'), req.headers);
    } catch {
      counts.badSignatures++;
      res.writeHead(401).end();
      return;
    }
    res.writeHead(204).end();
    const known = events.get(event.event_id);
    if (known) {
      known[3]++;
      counts.duplicates++;
      return;
    }
    const position = BigInt(event.position);
    if (position <= lastPosition) counts.outOfOrder++;
    else lastPosition = position;
    events.set(event.event_id, [event.type, Number(event.created_at), receivedAt, 1]);
    if (waiter) settleWaiter();
  });
});
// Longer than the sender's idle sockets live, so a kept-alive connection is not closed under it.
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));

process.on('message', (message) => {
  if (message.cmd === 'waitFor') {
    const ids = new Set(message.ids);
    const done = () => {
      clearTimeout(timer);
      waiter = null;
      let missing = 0;
      let lastAt = null;
      for (const id of ids) {
        const known = events.get(id);
        if (!known) missing++;
        else if (lastAt === null || known[2] > lastAt) lastAt = known[2];
      }
      process.send({ waited: { missing, lastAt } });
    };
    const timer = setTimeout(done, message.timeoutMs);
    waiter = { ids, resolve: done };
    settleWaiter();
  } else if (message.cmd === 'dump') {
    process.send({ dump: { counts, events: [...events].map(([id, record]) => [id, ...record]) } });
  }
});
process.on('disconnect', () => process.exit(0));
