import type { NextFunction, Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import type { Logger as PinoRoot } from 'pino';
import type { MetricsService } from '../../metrics/metrics.service';
import { replyCode } from '../http/reply-code';
import { serverReplyOf } from '../http/server-reply';
import { writeAccessLine } from './access-line';

/** `X-Request-Id` values taken from the client: short, plain, and not shaped like a credential. */
const WELL_FORMED = /^[A-Za-z0-9._:-]{1,64}$/;
const JWT_SHAPED = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * The request's trace ID: the client's `X-Request-Id` when well-formed, otherwise a new UUID
 * v4. A value that looks like a token or contains a configured secret is replaced, since the
 * ID is written to every log line of the request.
 */
export function traceIdOf(header: string | string[] | undefined, secrets: readonly string[]): string {
  const value = typeof header === 'string' ? header : undefined;
  if (value === undefined || !WELL_FORMED.test(value) || JWT_SHAPED.test(value)) return randomUUID();
  if (
    secrets.some(
      (secret) => secret !== '' && (value.includes(secret) || (value.length >= 16 && secret.includes(value))),
    )
  )
    return randomUUID();
  return value;
}

export interface TraceableRequest extends Request {
  id: string;
}

/**
 * First middleware of every request: the trace ID (request header, reply header, the request's
 * log lines), the headers every reply carries, the access log line and the request metrics.
 * The access line is written here rather than through pino-http, and request-scoped lines take
 * the trace ID from the request rather than from an AsyncLocalStorage: on Node 20 both cost
 * the server 10–15 % of its throughput each (measured against /health/ready).
 */
export function requestContext(
  root: PinoRoot,
  metrics: MetricsService,
  secrets: readonly string[],
  draining: () => boolean,
  /** Told of every finished request (the analytics request counts); memory only, it must not block. */
  tally: (path: string, status: number | null, code: number | undefined) => void = () => undefined,
): (request: Request, response: Response, next: NextFunction) => void {
  return (request, response, next) => {
    const id = traceIdOf(request.headers['x-request-id'], secrets);
    (request as TraceableRequest).id = id;
    response.setHeader('X-Request-Id', id);
    response.setHeader('Cache-Control', 'no-store');
    response.setHeader('X-Content-Type-Options', 'nosniff');
    // While draining, keep-alive clients are told to reconnect (to another instance).
    if (draining()) response.setHeader('Connection', 'close');
    const began = process.hrtime.bigint();
    // 'close' without 'finish': the client went away before the reply (a timeout on its side),
    // unless the HTTP server answered the request itself (its body did not arrive in time).
    let counted = false;
    const count = (): void => {
      if (counted) return;
      counted = true;
      const seconds = Number(process.hrtime.bigint() - began) / 1e9;
      const refused = serverReplyOf(response);
      const status = refused?.status ?? (response.writableFinished ? response.statusCode : null);
      const code = refused?.code ?? replyCode(response);
      const labels = {
        method: request.method,
        route: routeOf(request),
        status: status === null ? 'aborted' : String(status),
        code: String(code ?? ''),
      };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, seconds);
      if (refused) metrics.connectionErrors.inc({ reason: refused.reason });
      const path = pathOf(request);
      tally(path, status, code);
      writeAccessLine(root, {
        traceId: id,
        // The client address only on the lines the HTTP server's replies write, as theirs do.
        req: {
          method: request.method,
          path,
          ...(refused ? { remoteAddress: refused.remoteAddress } : {}),
        },
        status,
        code,
        responseTime: Math.round(seconds * 1000),
        reason: refused?.reason,
      });
    };
    response.once('finish', count).once('close', count);
    next();
  };
}

/** The path without the query string: queries can carry what must not be logged. */
function pathOf(request: Request): string {
  const url = request.originalUrl ?? request.url;
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** The route template (never the raw path: IDs in paths would make a series per user). */
function routeOf(request: Request): string {
  const path = (request.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${request.baseUrl}${path}` : '(unmatched)';
}
