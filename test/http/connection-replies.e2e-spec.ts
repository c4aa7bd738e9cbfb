// Black-box tests of the replies the HTTP server gives at the connection level: a request
// answered before its body arrived gets exactly one reply (never a later 408 on the same
// connection), and every 408 / 431 / 400 the server writes itself has one access line and is
// counted in /metrics. Small timeouts keep the waits short; no test asserts how long anything took.
import type { Socket } from 'node:net';
import { PATIENCE_MS, bodyOf, listenRaw, rawConnection } from '../helpers/raw-connection';
import { TestApp, issueUser, startTestApp } from '../helpers/test-app';

const TIMEOUTS = {
  HTTP_HEADERS_TIMEOUT_MS: '1500',
  HTTP_REQUEST_TIMEOUT_MS: '3000',
  HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000',
  HTTP_IDLE_TIMEOUT_MS: '2000',
  LOG_LEVEL: 'info',
};
/** Keeps a request unfinished: a byte now and then, never the end. */
function drip(socket: Socket, piece: string): void {
  const timer = setInterval(() => {
    if (socket.writable) socket.write(piece);
    else clearInterval(timer);
  }, 300);
  socket.once('close', () => clearInterval(timer));
}

/** What `read` returns once it is not empty, or empty after PATIENCE_MS. */
async function settled<T>(read: () => T[]): Promise<T[]> {
  const deadline = Date.now() + PATIENCE_MS;
  while (read().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return read();
}

const statusLines = (received: string): string[] => received.match(/HTTP\/1\.1 \d{3} [^\r\n]*/g) ?? [];

interface LogEntry {
  level: number;
  msg: string;
  trace_id?: string;
  reason?: string;
  code?: number;
  req?: { method?: string; path?: string; remoteAddress?: string };
  res?: { statusCode?: number | null };
}

describe('HTTP replies at the connection level', () => {
  const lines: string[] = [];
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startTestApp(TIMEOUTS, { logLines: lines });
    port = await listenRaw(t);
  });
  afterAll(() => t.close());

  const entries = (from: number): LogEntry[] => lines.slice(from).map((line) => JSON.parse(line) as LogEntry);

  async function connectionErrors(reason: string): Promise<number> {
    const metrics = await t.http.get('/metrics');
    const match = new RegExp(`^im_http_connection_errors_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(
      metrics.text,
    );
    return match ? Number(match[1]) : 0;
  }

  it('answers an upload refused before its body arrived once, then closes the connection', async () => {
    const boundary = 'b0undary';
    const outcome = await rawConnection(port, (socket) => {
      socket.write(
        'POST /app/sdk/media/upload HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n' +
          `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 100000\r\n\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
      );
      drip(socket, 'x');
    });
    expect(outcome.closed).toBe(true);
    // One reply: the refusal, never a 408 of the same request after it.
    expect(statusLines(outcome.received)).toEqual([expect.stringMatching(/^HTTP\/1\.1 200 /)]);
    expect(outcome.received).toMatch(/\r\nConnection: close\r\n/i);
    expect(bodyOf(outcome.received)).toEqual(expect.objectContaining({ code: 1101 }));
  }, 90_000);

  it('keeps the connection of a request whose small body had arrived when it was refused', async () => {
    // The whole body is in hand: Node reads it off, and the connection serves the next request.
    const body = '{"x":1}';
    const outcome = await rawConnection(port, (socket) => {
      socket.write(
        'POST /app/sdk/sync HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
          `Content-Length: ${body.length}\r\n\r\n${body}`,
      );
      socket.once('data', () => socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    });
    expect(outcome.closed).toBe(true);
    expect(statusLines(outcome.received)).toEqual([
      expect.stringMatching(/^HTTP\/1\.1 200 /),
      expect.stringMatching(/^HTTP\/1\.1 200 /),
    ]);
  }, 90_000);

  it('logs and counts a request whose headers never end (408, headers_timeout)', async () => {
    const before = await connectionErrors('headers_timeout');
    const from = lines.length;
    const outcome = await rawConnection(port, (socket) => {
      socket.write('GET /health HTTP/1.1\r\nHost: x\r\nX-Private: header-value-never-logged\r\n');
      drip(socket, 'X-Drip: 1\r\n');
    });
    expect(statusLines(outcome.received)).toEqual([expect.stringMatching(/^HTTP\/1\.1 408 /)]);
    const traceId = /\r\nX-Request-Id: ([^\r\n]+)\r\n/i.exec(outcome.received)?.[1];
    const logged = entries(from).filter((entry) => entry.reason === 'headers_timeout');
    expect(logged).toEqual([
      expect.objectContaining({
        level: 30,
        trace_id: traceId,
        code: 1004,
        res: { statusCode: 408 },
        req: { remoteAddress: expect.stringMatching(/127\.0\.0\.1$/) },
      }),
    ]);
    expect(lines.slice(from).join('\n')).not.toContain('header-value-never-logged');
    expect(await connectionErrors('headers_timeout')).toBe(before + 1);
  }, 90_000);

  it('logs and counts a request whose body never ends (408, request_timeout) on one access line', async () => {
    const before = await connectionErrors('request_timeout');
    const from = lines.length;
    const outcome = await rawConnection(port, (socket) => {
      socket.write(
        'POST /app/sdk/client-errors HTTP/1.1\r\nHost: x\r\nX-Request-Id: body-timeout-1\r\n' +
          'Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{',
      );
      drip(socket, ' ');
    });
    expect(statusLines(outcome.received)).toEqual([expect.stringMatching(/^HTTP\/1\.1 408 /)]);
    expect(bodyOf(outcome.received)).toEqual({ code: 1004, msg: expect.stringMatching(/^request: /), data: null });
    // The request's own access line, under its trace ID, says what happened: not "aborted".
    // Written when the server side of the connection has closed too.
    const logged = await settled(() => entries(from).filter((entry) => entry.trace_id === 'body-timeout-1'));
    expect(logged).toEqual([
      expect.objectContaining({
        level: 30,
        code: 1004,
        reason: 'request_timeout',
        res: { statusCode: 408 },
        req: { method: 'POST', path: '/app/sdk/client-errors', remoteAddress: expect.stringMatching(/127\.0\.0\.1$/) },
      }),
    ]);
    expect(await connectionErrors('request_timeout')).toBe(before + 1);
  }, 90_000);

  it('logs and counts headers larger than the limit (431, headers_too_large)', async () => {
    const before = await connectionErrors('headers_too_large');
    const from = lines.length;
    const outcome = await rawConnection(port, (socket) =>
      socket.write(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'v'.repeat(20_000)}\r\n\r\n`),
    );
    expect(statusLines(outcome.received)).toEqual([expect.stringMatching(/^HTTP\/1\.1 431 /)]);
    const logged = entries(from).filter((entry) => entry.reason === 'headers_too_large');
    expect(logged).toEqual([expect.objectContaining({ code: 1004, res: { statusCode: 431 } })]);
    expect(lines.slice(from).join('\n')).not.toContain('vvvvvvvv');
    expect(await connectionErrors('headers_too_large')).toBe(before + 1);
  }, 90_000);

  it('logs and counts malformed HTTP (400, malformed)', async () => {
    const before = await connectionErrors('malformed');
    const from = lines.length;
    const outcome = await rawConnection(port, (socket) =>
      socket.write('GET /health HTTP/1.1\r\nHost: x\r\nBad Header Line secret-looking-value\r\n\r\n'),
    );
    expect(statusLines(outcome.received)).toEqual([expect.stringMatching(/^HTTP\/1\.1 400 /)]);
    const logged = entries(from).filter((entry) => entry.reason === 'malformed');
    expect(logged).toEqual([expect.objectContaining({ code: 1004, res: { statusCode: 400 } })]);
    expect(lines.slice(from).join('\n')).not.toContain('secret-looking-value');
    expect(await connectionErrors('malformed')).toBe(before + 1);
  }, 90_000);

  it('logs an upload the client aborts half-way as its access line, not as a server error', async () => {
    const user = await issueUser(t);
    const boundary = 'ab0rt';
    const from = lines.length;
    await rawConnection(port, (socket) => {
      socket.write(
        `POST /app/sdk/media/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${user.token}\r\n` +
          `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 100000\r\n\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="kind"\r\n\r\nfile\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n` +
          'x'.repeat(2000),
      );
      // Part of the file is in; the client gives up.
      setTimeout(() => socket.destroy(), 300);
    });
    const access = await settled(() =>
      entries(from).filter((entry) => entry.req?.path === '/app/sdk/media/upload' && entry.res !== undefined),
    );
    expect(access).toHaveLength(1);
    expect(entries(from).filter((entry) => entry.level >= 50)).toEqual([]);
    expect(lines.slice(from).join('\n')).not.toContain(user.token);
  }, 90_000);
});
