import type { Server, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { failure } from '../envelope';
import { ErrorCode } from '../error-code';
import { ROOM_CALLBACK_PATH } from './paths';
import { ServerReplyReason, ServerReplyReporter, markServerReply } from './server-reply';

/** Node's default limit of the request line and headers together (`--max-http-header-size`). */
export const HEADER_LIMIT_BYTES = 16 * 1024;

/**
 * How long a connection the service closes keeps reading (and dropping) what the client still
 * sends: closing with unread bytes makes the kernel send a reset, which can make the client
 * drop the reply it has not read yet.
 */
export const LINGER_MS = 2000;

const PROBLEMS: Record<string, [number, string, ServerReplyReason]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    `request headers: larger than ${HEADER_LIMIT_BYTES / 1024} KiB together (request line, token and query string included)`,
    'headers_too_large',
  ],
  HPE_URI_TOO_LONG: [414, 'request line: URL too long', 'uri_too_long'],
  // HTTP_HEADERS_TIMEOUT_MS or HTTP_REQUEST_TIMEOUT_MS ran out (server-timeouts.ts).
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request: headers or body not received in time', 'headers_timeout'],
};
const MALFORMED: [number, string, ServerReplyReason] = [400, 'request: malformed HTTP', 'malformed'];

// The request line as far as Node read it: the provider callback answers in its own format.
const CALLBACK_REQUEST_LINE = new RegExp(`^[A-Z]+ ${ROOM_CALLBACK_PATH.replace(/\//g, '\\/')}(?:/|\\?|\\s|$)`, 'i');

function isCallbackRequest(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): boolean {
  return (
    error.rawPacket !== undefined && CALLBACK_REQUEST_LINE.test(error.rawPacket.subarray(0, 256).toString('latin1'))
  );
}

function clientAddress(pending: ServerResponse, socket: Socket): string | undefined {
  const ip = (pending.req as { ip?: unknown } | undefined)?.ip;
  return typeof ip === 'string' ? ip : socket.remoteAddress;
}

/**
 * Requests Node refuses before any middleware sees them (headers too large, malformed HTTP,
 * headers or body not received in time) still get the envelope: Node's own reply is a bare
 * status line. The rest of the request is read and dropped before the socket closes, so the
 * client sees the reply rather than a reset. Each reply writes one access line and is counted:
 * by the request's own line when its body timed out (request-context.ts), by `report` otherwise.
 */
export function answerMalformedRequests(server: Server, report?: ServerReplyReporter): void {
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket) => {
    // Once a reply has begun on this connection, another would corrupt it (Node's own rule). A
    // connection no longer writable has answered its request and is closing (early-reply.ts):
    // a request timeout met meanwhile must not write a second reply.
    const pending = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || pending?.headersSent) {
      socket.destroy();
      return;
    }
    const callback = isCallbackRequest(error);
    let [status, msg, reason] = PROBLEMS[error.code ?? ''] ?? MALFORMED;
    // A timeout with a request in flight: its headers arrived, its body did not.
    if (reason === 'headers_timeout' && pending) reason = 'request_timeout';
    const code = callback ? 1 : ErrorCode.INVALID_PARAMETER;
    if (callback) [status, msg] = [403, ''];
    const header = pending?.getHeader('X-Request-Id');
    const traceId = typeof header === 'string' ? header : randomUUID();
    const body = callback ? JSON.stringify({ code }) : JSON.stringify(failure(ErrorCode.INVALID_PARAMETER, msg));
    // Express's `ip` (TRUST_PROXY applied) when the request is Express's; read now, since the
    // request's access line is written once the socket has closed and its address is gone.
    if (pending) markServerReply(pending, { status, code, reason, remoteAddress: clientAddress(pending, socket) });
    else report?.({ status, code, reason, traceId, remoteAddress: socket.remoteAddress });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nCache-Control: no-store\r\n` +
        `X-Request-Id: ${traceId}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    socket.resume();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  });
}
