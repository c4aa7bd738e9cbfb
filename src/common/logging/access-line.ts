import type { Logger as PinoRoot } from 'pino';
import type { ServerReplyReason } from '../http/server-reply';

/** What one access line says about one request: never a header value, query string or body. */
export interface AccessLine {
  traceId: string;
  req: { method?: string; path?: string; remoteAddress?: string };
  /** null: the client went away before the reply. */
  status: number | null;
  code: number | undefined;
  responseTime?: number;
  /** Set when the HTTP server answered the connection itself (malformed-request.ts). */
  reason?: ServerReplyReason;
}

/**
 * Writes the access line of a request, whoever answered it: the application (request-context.ts)
 * or the HTTP server itself (timeouts, oversized or malformed requests).
 */
export function writeAccessLine(root: PinoRoot, line: AccessLine): void {
  const { status } = line;
  // 503 is a dependency outage the reply already explains; a 500 is a fault, logged with its
  // stack by the exception filter under the same trace ID.
  const level = status === null || status === 503 ? 'warn' : status >= 500 ? 'error' : 'info';
  const msg =
    status === null
      ? 'request aborted by the client'
      : status >= 500
        ? `request failed with HTTP ${status}`
        : line.reason
          ? 'request refused by the HTTP server'
          : 'request completed';
  root[level](
    {
      trace_id: line.traceId,
      req: line.req,
      res: { statusCode: status },
      ...(line.responseTime === undefined ? {} : { responseTime: line.responseTime }),
      code: line.code,
      ...(line.reason ? { reason: line.reason } : {}),
    },
    msg,
  );
}
