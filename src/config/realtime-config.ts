import { readChoice, readInteger } from './env-values';

/** The socket.io gateway: resume backlog, the server's own limits, and per-socket client limits. */
export interface RealtimeConfig {
  /** SDK_ENABLED=false switches the SDK off: its token answers 1002 on HTTP and at the handshake. */
  sdkEnabled: boolean;
  /** Path of the socket.io endpoint on the service's own port. */
  path: string;
  /** A resume point further behind than this many of the user's events gives no replay. */
  backlogEvents: number;
  /** A resume point older than this gives no replay; events older than this are pruned. */
  backlogSeconds: number;
  pingIntervalMs: number;
  pingTimeoutMs: number;
  /** How long a connection may stay without completing the socket.io handshake. */
  connectTimeoutMs: number;
  /** Client messages allowed per socket per 10 seconds (more answer 1005). */
  clientMessagesPer10s: number;
  /** Handshakes per user per minute, across instances with Redis (more answer 1005 in connect_error). */
  connectsPerMinute: number;
  /** Open connections per user on one instance (more answer 1005 in connect_error). */
  maxSocketsPerUser: number;
  /**
   * A connection of a crashed instance counts as online at most this long after its last
   * heartbeat (heartbeats every third of it; the sweep at least every 10 s, so the default
   * announces a crashed instance's users offline within a minute).
   */
  presenceTtlMs: number;
}

/** Largest client message payload accepted (the contract); larger ones answer 1004. */
export const CLIENT_MESSAGE_MAX_BYTES = 16 * 1024;
/**
 * socket.io's own frame limit: above it the transport is closed without a reply. It sits
 * well above CLIENT_MESSAGE_MAX_BYTES so that an oversized message still gets its 1004.
 */
export const SOCKET_MAX_HTTP_BUFFER_BYTES = 64 * 1024;

export function loadRealtimeConfig(env: NodeJS.ProcessEnv, problems: string[]): RealtimeConfig {
  const path = env.REALTIME_PATH || '/socket.io';
  if (!/^\/[A-Za-z0-9._~/-]*$/.test(path) || path.endsWith('/'))
    problems.push('REALTIME_PATH must be a URL path such as /socket.io (no trailing slash)');
  const pingIntervalMs = readInteger(env, 'REALTIME_PING_INTERVAL_MS', 25_000, 1000, 300_000, problems);
  const pingTimeoutMs = readInteger(env, 'REALTIME_PING_TIMEOUT_MS', 20_000, 1000, 300_000, problems);
  return {
    sdkEnabled: readChoice(env, 'SDK_ENABLED', ['true', 'false'] as const, 'true', problems) === 'true',
    path,
    backlogEvents: readInteger(env, 'REALTIME_BACKLOG_EVENTS', 10_000, 1, 1_000_000, problems),
    backlogSeconds: readInteger(env, 'REALTIME_BACKLOG_SECONDS', 604_800, 60, 90 * 24 * 3600, problems),
    pingIntervalMs,
    pingTimeoutMs,
    connectTimeoutMs: readInteger(env, 'REALTIME_CONNECT_TIMEOUT_MS', 10_000, 1000, 120_000, problems),
    clientMessagesPer10s: readInteger(env, 'REALTIME_CLIENT_MESSAGES_PER_10S', 100, 1, 100_000, problems),
    connectsPerMinute: readInteger(env, 'REALTIME_CONNECTS_PER_MINUTE', 60, 1, 100_000, problems),
    maxSocketsPerUser: readInteger(env, 'REALTIME_MAX_SOCKETS_PER_USER', 20, 1, 10_000, problems),
    presenceTtlMs: readInteger(env, 'REALTIME_PRESENCE_TTL_MS', 45_000, 3000, 600_000, problems),
  };
}
