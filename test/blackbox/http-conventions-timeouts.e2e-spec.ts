// Black-box tests of the HTTP server's timeouts (HTTP_*_TIMEOUT_MS): a connection that never
// sends a byte, one whose headers never end, one whose body never ends and an idle keep-alive
// connection are all closed by the server; a request whose headers time out is answered with
// the envelope. Small timeouts keep the waits short; no test asserts how long a close took.
import type { Server } from 'node:http';
import { AddressInfo, Socket, connect } from 'node:net';
import { TestApp, startTestApp } from '../helpers/test-app';

const TIMEOUTS = {
  HTTP_HEADERS_TIMEOUT_MS: '1500',
  HTTP_REQUEST_TIMEOUT_MS: '3000',
  HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000',
  HTTP_IDLE_TIMEOUT_MS: '2000',
  REALTIME_PING_INTERVAL_MS: '4000',
  REALTIME_CONNECT_TIMEOUT_MS: '8000',
};
/** Far beyond every configured timeout and its check: a connection still open then was left open. */
const PATIENCE_MS = 40_000;

interface Outcome {
  /** Whether the server closed the connection before PATIENCE_MS. */
  closed: boolean;
  received: string;
}

/** Opens a raw TCP connection, runs `talk` on it and collects what arrives until the server closes it. */
function rawConnection(port: number, talk: (socket: Socket) => void = () => undefined): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const giveUp = setTimeout(() => {
      socket.destroy();
      resolve({ closed: false, received });
    }, PATIENCE_MS);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET') reject(error);
    });
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve({ closed: true, received });
    });
    socket.on('connect', () => talk(socket));
  });
}

function bodyOf(reply: string): unknown {
  const at = reply.indexOf('\r\n\r\n');
  return JSON.parse(reply.slice(at + 4));
}

describe('HTTP server timeouts', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp(TIMEOUTS);
    const server = t.app.getHttpServer() as Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  it('closes a connection that never sends a byte', async () => {
    const outcome = await rawConnection(port);
    expect(outcome.closed).toBe(true);
    // Node counts the headers timeout from the connection's first moment; it may answer 408 first.
    if (outcome.received) expect(bodyOf(outcome.received)).toEqual(expect.objectContaining({ code: 1004 }));
  }, 90_000);

  it('answers a request whose headers never end with 408 and the envelope, then closes', async () => {
    let drip: NodeJS.Timeout | undefined;
    const outcome = await rawConnection(port, (socket) => {
      socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
      // A header line now and then keeps the connection busy, never complete (slowloris).
      drip = setInterval(() => socket.writable && socket.write('X-Drip: 1\r\n'), 300);
    });
    clearInterval(drip);
    expect(outcome.closed).toBe(true);
    expect(outcome.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(outcome.received).toMatch(/\r\nContent-Type: application\/json/i);
    expect(bodyOf(outcome.received)).toEqual({ code: 1004, msg: expect.stringMatching(/^request: /), data: null });
  }, 90_000);

  it('answers a request whose body never ends with 408 and the envelope, then closes', async () => {
    let drip: NodeJS.Timeout | undefined;
    const outcome = await rawConnection(port, (socket) => {
      socket.write(
        'POST /app/sdk/client-errors HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{',
      );
      drip = setInterval(() => socket.writable && socket.write(' '), 300);
    });
    clearInterval(drip);
    expect(outcome.closed).toBe(true);
    expect(outcome.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(bodyOf(outcome.received)).toEqual({ code: 1004, msg: expect.stringMatching(/^request: /), data: null });
  }, 90_000);

  it('closes an idle keep-alive connection after its answer', async () => {
    const outcome = await rawConnection(port, (socket) =>
      socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n'),
    );
    expect(outcome.closed).toBe(true);
    expect(outcome.received).toMatch(/^HTTP\/1\.1 200 /);
    expect(outcome.received).toMatch(/\r\nKeep-Alive: timeout=1\r\n/i);
  }, 90_000);

  it('keeps a connection whose request is still being answered, however long without a byte', async () => {
    // A request in flight is its handler's, not the idle timeout's: a socket.io long poll is held
    // without a byte until the next ping (REALTIME_PING_INTERVAL_MS, here twice the idle timeout).
    const path = t.config.realtime.path;
    const open = await rawConnection(port, (socket) =>
      socket.write(`GET ${path}/?EIO=4&transport=polling HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
    );
    const sid = /"sid":"([^"]+)"/.exec(open.received)?.[1];
    expect(sid).toEqual(expect.any(String));
    const poll = await rawConnection(port, (socket) =>
      socket.write(`GET ${path}/?EIO=4&transport=polling&sid=${sid} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
    );
    expect(poll).toEqual({ closed: true, received: expect.stringMatching(/^HTTP\/1\.1 200 /) });
  }, 90_000);
});
