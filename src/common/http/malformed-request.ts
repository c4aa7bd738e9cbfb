import type { Server } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { failure } from '../envelope';
import { ErrorCode } from '../error-code';
import { ROOM_CALLBACK_PATH } from './paths';

/** Node's default limit of the request line and headers together (`--max-http-header-size`). */
export const HEADER_LIMIT_BYTES = 16 * 1024;

const PROBLEMS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    `request headers: larger than ${HEADER_LIMIT_BYTES / 1024} KiB together (request line, token and query string included)`,
  ],
  HPE_URI_TOO_LONG: [414, 'request line: URL too long'],
  // HTTP_HEADERS_TIMEOUT_MS or HTTP_REQUEST_TIMEOUT_MS ran out (server-timeouts.ts).
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request: headers or body not received in time'],
};

// The request line as far as Node read it: the provider callback answers in its own format.
const CALLBACK_REQUEST_LINE = new RegExp(`^[A-Z]+ ${ROOM_CALLBACK_PATH.replace(/\//g, '\\/')}(?:/|\\?|\\s|$)`, 'i');

function isCallbackRequest(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): boolean {
  return (
    error.rawPacket !== undefined && CALLBACK_REQUEST_LINE.test(error.rawPacket.subarray(0, 256).toString('latin1'))
  );
}

/**
 * Requests Node refuses before any middleware sees them (headers too large, malformed HTTP,
 * headers or body not received in time) still get the envelope: Node's own reply is a bare status line. The rest of the request is
 * read and dropped before the socket closes, so the client sees the reply rather than a reset.
 */
export function answerMalformedRequests(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket) => {
    // Once a reply has begun on this connection, another would corrupt it (Node's own rule).
    const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || pending?.headersSent) {
      socket.destroy();
      return;
    }
    const callback = isCallbackRequest(error);
    const [status, msg] = callback ? [403, ''] : (PROBLEMS[error.code ?? ''] ?? [400, 'request: malformed HTTP']);
    const body = callback ? JSON.stringify({ code: 1 }) : JSON.stringify(failure(ErrorCode.INVALID_PARAMETER, msg));
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nCache-Control: no-store\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    socket.resume();
    setTimeout(() => socket.destroy(), 2000).unref();
  });
}
