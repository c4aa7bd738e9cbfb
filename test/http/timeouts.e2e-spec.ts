// Black-box tests of the HTTP server's timeouts (HTTP_*_TIMEOUT_MS): a connection that never
// sends a byte, one whose headers never end, one whose body never ends and an idle keep-alive
// connection are all closed by the server; a request whose headers time out is answered with
// the envelope. Small timeouts keep the waits short; no test asserts how long a close took.
import { bodyOf, listenRaw, rawConnection } from '../helpers/raw-connection';
import { TestApp, startTestApp } from '../helpers/test-app';

const TIMEOUTS = {
  HTTP_HEADERS_TIMEOUT_MS: '1500',
  HTTP_REQUEST_TIMEOUT_MS: '3000',
  HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000',
  HTTP_IDLE_TIMEOUT_MS: '2000',
  REALTIME_PING_INTERVAL_MS: '4000',
  REALTIME_CONNECT_TIMEOUT_MS: '8000',
};
describe('HTTP server timeouts', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp(TIMEOUTS);
    port = await listenRaw(t);
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
