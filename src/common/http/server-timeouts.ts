import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { HttpConfig } from '../../config/http-config';
import { closeAfterEarlyReplies } from './early-reply';

/**
 * Node checks the headers and request timeouts on a timer, every 30 s unless told otherwise, so
 * a deadline could be overrun by that much. A quarter of the headers timeout, at most a second:
 * the check walks only the connections with a request under way.
 */
export function connectionsCheckingInterval(headersTimeoutMs: number): number {
  return Math.max(100, Math.min(1000, Math.floor(headersTimeoutMs / 4)));
}

/**
 * Applies HTTP_*_TIMEOUT_MS to the server; before it listens, since Node reads the checking
 * interval when it starts listening. A request whose headers or body time out reaches the
 * 'clientError' handler (malformed-request.ts), which answers 408 with the envelope. The idle
 * timeout closes a silent connection only when no request of it is being answered: a slow
 * handler or a socket.io long poll is not cut off. Upgraded (WebSocket) connections leave
 * Node's HTTP handling, and these timers, at the upgrade; socket.io pings them instead. A reply
 * written before its request's body arrived closes the connection (early-reply.ts), so the
 * request timeout never meets a request already answered.
 */
export function applyServerTimeouts(server: Server, http: HttpConfig): void {
  server.headersTimeout = http.headersTimeoutMs;
  server.requestTimeout = http.requestTimeoutMs;
  server.keepAliveTimeout = http.keepAliveTimeoutMs;
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
    connectionsCheckingInterval(http.headersTimeoutMs);
  server.setTimeout(http.idleTimeoutMs);
  closeAfterEarlyReplies(server);
  // With a listener, Node leaves the decision to it (without one it destroys every timed-out socket).
  server.on('timeout', (socket: Socket) => {
    const response = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (!response || response.writableEnded) socket.destroy();
  });
}
