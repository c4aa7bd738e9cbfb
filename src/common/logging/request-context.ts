import type { NextFunction, Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import type { Logger as PinoRoot } from 'pino';
import { pinoHttp } from 'pino-http';
import type { MetricsService } from '../../metrics/metrics.service';
import { replyCode } from '../http/reply-code';

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
  if (secrets.some((secret) => secret !== '' && (value.includes(secret) || (value.length >= 16 && secret.includes(value))))) return randomUUID();
  return value;
}

export interface TraceableRequest extends Request {
  id: string;
}

/**
 * First middleware of every request: trace ID (request header, reply header, every log line),
 * the headers every reply carries, the access log line and the request metrics.
 */
export function requestContext(
  root: PinoRoot,
  metrics: MetricsService,
  secrets: readonly string[],
  draining: () => boolean,
): Array<(request: Request, response: Response, next: NextFunction) => void> {
  const accessLog = pinoHttp({
    logger: root,
    genReqId: (request) => (request as TraceableRequest).id,
    quietReqLogger: true,
    customAttributeKeys: { reqId: 'trace_id' },
    serializers: {
      req: (request: { method: string; url: string }) => ({ method: request.method, path: request.url.split('?')[0] }),
      res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
    },
    // 503 is a dependency outage the reply already explains; 500 is a fault, logged with its
    // stack by the exception filter.
    customLogLevel: (_request, response, error) => (response.statusCode === 503 ? 'warn' : error || response.statusCode >= 500 ? 'error' : 'info'),
    customSuccessObject: (_request, response, value: Record<string, unknown>) => ({ ...value, code: replyCode(response as Response) }),
    customErrorMessage: (_request, response) => `request failed with HTTP ${response.statusCode}`,
    customErrorObject: (_request, response, _error, value: Record<string, unknown>) => ({ ...value, err: undefined, code: replyCode(response as Response) }),
  });
  const start = (request: Request, response: Response, next: NextFunction): void => {
    const id = traceIdOf(request.headers['x-request-id'], secrets);
    (request as TraceableRequest).id = id;
    response.setHeader('X-Request-Id', id);
    response.setHeader('Cache-Control', 'no-store');
    response.setHeader('X-Content-Type-Options', 'nosniff');
    // While draining, keep-alive clients are told to reconnect (to another instance).
    if (draining()) response.setHeader('Connection', 'close');
    const began = process.hrtime.bigint();
    // 'close' without 'finish': the client went away before the reply (a timeout on its side).
    let counted = false;
    const count = (): void => {
      if (counted) return;
      counted = true;
      const labels = { method: request.method, route: routeOf(request), status: response.writableFinished ? String(response.statusCode) : 'aborted', code: String(replyCode(response) ?? '') };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - began) / 1e9);
    };
    response.once('finish', count).once('close', count);
    next();
  };
  return [start, accessLog];
}

/** The route template (never the raw path: IDs in paths would make a series per user). */
function routeOf(request: Request): string {
  const path = (request.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${request.baseUrl}${path}` : '(unmatched)';
}
