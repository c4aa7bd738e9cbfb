import { readInteger } from './env-values';

/**
 * Timeouts of the HTTP server, set on purpose rather than left to Node's defaults (which keep a
 * connection that sends nothing open for up to 90 s and one that trickles a body for 5 min).
 * Node's rule: the headers must be due no later than the whole request.
 */
export interface HttpConfig {
  /** From a connection's first moment (or a keep-alive request's first byte) to the end of its headers. */
  headersTimeoutMs: number;
  /** From the same moment to the end of the body; a MEDIA_MAX_FILE_BYTES upload on a slow link must fit. */
  requestTimeoutMs: number;
  /** How long a keep-alive connection may wait for its next request. */
  keepAliveTimeoutMs: number;
  /**
   * How long a connection may stay silent while no request of it is being answered; a request
   * in flight (a slow query, a socket.io long poll) is its handler's. WebSocket upgrades leave
   * HTTP and every timer here.
   */
  idleTimeoutMs: number;
}

export function loadHttpConfig(env: NodeJS.ProcessEnv, problems: string[]): HttpConfig {
  const headersTimeoutMs = readInteger(env, 'HTTP_HEADERS_TIMEOUT_MS', 20_000, 500, 300_000, problems);
  const requestTimeoutMs = readInteger(env, 'HTTP_REQUEST_TIMEOUT_MS', 600_000, 500, 3_600_000, problems);
  if (requestTimeoutMs < headersTimeoutMs)
    problems.push(
      'HTTP_REQUEST_TIMEOUT_MS must not be below HTTP_HEADERS_TIMEOUT_MS (the headers are part of the request)',
    );
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: readInteger(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000, problems),
    idleTimeoutMs: readInteger(env, 'HTTP_IDLE_TIMEOUT_MS', 60_000, 500, 3_600_000, problems),
  };
}
