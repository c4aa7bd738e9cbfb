'use strict';

/**
 * The host of the before-send benchmark, in a process of its own so it takes no CPU from the
 * load generator's event loop: checks each request's Standard Webhooks signature (as a real
 * host would) and answers {"action":"allow"} at once. Started by bench/lib/before-send.js with
 * BEFORE_SEND_SECRET; reports its port, then its counts when asked, over IPC.
 */

const http = require('node:http');
const { createHmac, timingSafeEqual } = require('node:crypto');

const secret = Buffer.from(String(process.env.BEFORE_SEND_SECRET).replace(/^whsec_/, ''), 'base64');
const counts = { requests: 0, badSignatures: 0 };
const ALLOW = '{"action":"allow"}';

function signatureOk(req, body) {
  const id = req.headers['webhook-id'];
  const timestamp = req.headers['webhook-timestamp'];
  const signatures = String(req.headers['webhook-signature'] || '').split(' ');
  const expected = Buffer.from(
    `v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64')}`,
  );
  return signatures.some((s) => s.length === expected.length && timingSafeEqual(Buffer.from(s), expected));
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    counts.requests++;
    if (!signatureOk(req, Buffer.concat(chunks).toString('utf8'))) {
      counts.badSignatures++;
      res.writeHead(401).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': ALLOW.length }).end(ALLOW);
  });
});
// Longer than the client's idle sockets live, so a kept-alive connection is not closed under it.
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (message) => {
  if (message === 'counts') process.send({ counts });
});
process.on('disconnect', () => process.exit(0));
