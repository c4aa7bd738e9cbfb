'use strict';

/**
 * The baseline of the real-time benchmark: a bare socket.io server (the socket.io package the
 * service uses, same version, same transports and frame limit) in a plain Node process, with
 * no authentication, no database and no framework. Run as a child of bench/lib/realtime.js:
 *
 *   BARE_PORT=3904 node bench/lib/bare-socketio.js
 *
 * A client says who it is in its handshake (`auth.user_id`, and `auth.group: true` for a member
 * of the benchmark group): the socket joins the room `u:<user_id>` and, for members, `g`. It
 * gets `connection.ready` like a client of the service.
 *
 * GET /memory answers process.memoryUsage() and the number of connected sockets.
 * POST /templates (JSON) sets the envelopes and HTTP replies to copy: the ones the service
 * really sent in the same run, so both servers emit the same shapes and sizes.
 * POST /send {kind: 'group'|'direct', from, to, client_message_id, type, content} emits what the
 * service would for that send: one room broadcast of `message.new` to the 200 members (socket.io
 * encodes it once), or one emit to each side of the pair (each side's own envelope), then
 * answers with the template's reply. The emits happen before the reply, as in a service that
 * emitted inside the request.
 */

const http = require('node:http');
const { randomUUID, randomBytes } = require('node:crypto');
const { Server } = require('socket.io');

const port = Number(process.env.BARE_PORT || 3904);
const socketPath = process.env.BARE_PATH || '/socket.io';
const MAX_BODY = 64 * 1024;

/** { group, directPeer, directSender, groupReply, directReply }: see realtime-clients.js captureTemplates. */
let templates = null;

/** A random string as long as the template's (position strings are per user in the service). */
function sameLength(text) {
  const length = typeof text === 'string' ? text.length : 0;
  return randomBytes(Math.ceil((length * 3) / 4) + 1)
    .toString('base64url')
    .slice(0, length);
}

/** The template's envelope as it would be for this send: fresh IDs, time, client ID and content. */
function envelopeFor(template, body, now, eventId) {
  const message = template.data.message;
  return {
    ...template,
    event_id: eventId,
    position: sameLength(template.position),
    created_at: now,
    data: {
      ...template.data,
      message: {
        ...message,
        client_message_id: body.client_message_id,
        content: body.content,
        created_at: now,
        updated_at: now,
      },
    },
  };
}

function replyFor(template, body, now, eventId) {
  const data = template.data;
  const message = data.message
    ? {
        ...data.message,
        client_message_id: body.client_message_id,
        content: body.content,
        created_at: now,
        updated_at: now,
      }
    : undefined;
  return JSON.stringify({ ...template, data: { ...data, ...(message ? { message } : {}), event_id: eventId } });
}

function send(body) {
  const now = Date.now();
  const eventId = randomUUID();
  if (body.kind === 'group') {
    io.to('g').emit('message.new', envelopeFor(templates.group, body, now, eventId));
    return replyFor(templates.groupReply, body, now, eventId);
  }
  io.to(`u:${body.to}`).emit('message.new', envelopeFor(templates.directPeer, body, now, eventId));
  io.to(`u:${body.from}`).emit('message.new', envelopeFor(templates.directSender, body, now, eventId));
  return replyFor(templates.directReply, body, now, eventId);
}

function answer(res, status, text) {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/health') return answer(res, 200, '{"code":0,"msg":"ok"}');
  if (req.method === 'GET' && req.url === '/memory')
    return answer(res, 200, JSON.stringify({ ...process.memoryUsage(), sockets: io.engine.clientsCount }));
  if (req.method !== 'POST') return answer(res, 404, '{"code":1004,"msg":"not found"}');
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size > MAX_BODY) req.destroy();
    else chunks.push(chunk);
  });
  req.on('end', () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return answer(res, 400, '{"code":1004,"msg":"body is not JSON"}');
    }
    if (req.url === '/templates') {
      templates = body;
      return answer(res, 200, '{"code":0,"msg":"ok"}');
    }
    if (req.url !== '/send') return answer(res, 404, '{"code":1004,"msg":"not found"}');
    if (!templates) return answer(res, 409, '{"code":1004,"msg":"POST /templates first"}');
    return answer(res, 200, send(body));
  });
});

// The service's socket.io options (src/realtime/realtime-io.adapter.ts), minus authentication.
const io = new Server(server, {
  path: socketPath,
  transports: ['polling', 'websocket'],
  serveClient: false,
  maxHttpBufferSize: 64 * 1024,
  pingInterval: 25_000,
  pingTimeout: 20_000,
  connectTimeout: 10_000,
});

io.on('connection', (socket) => {
  const auth = socket.handshake.auth || {};
  const rooms = [`u:${auth.user_id}`];
  if (auth.group === true) rooms.push('g');
  socket.join(rooms);
  const now = Date.now();
  socket.emit('connection.ready', {
    event_id: randomUUID(),
    position: sameLength('0.0.0000000000000000'),
    server_time: now,
    resumed: false,
    replayed: 0,
  });
});

server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`bare socket.io ${require('socket.io/package.json').version} listening on ${port}\n`);
});
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    io.close();
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 2000).unref();
  });
}
