import { INestApplicationContext, Logger } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import type { MessageMappingProperties } from '@nestjs/websockets';
import { createAdapter } from '@socket.io/redis-adapter';
import Redis from 'ioredis';
import type { Observable } from 'rxjs';
import type { Server, ServerOptions, Socket } from 'socket.io';
import type { AppConfig } from '../config/app-config';
import { SOCKET_MAX_HTTP_BUFFER_BYTES } from '../config/realtime-config';
import { redisReconnectDelay } from '../common/redis-connection';
import { handshakeParser } from './handshake-parser';

/**
 * The socket.io server, configured on purpose rather than by defaults:
 * - `path` REALTIME_PATH (default /socket.io) on the service's own port; websocket and polling.
 * - `maxHttpBufferSize` 64 KiB: a frame above it closes the transport (socket.io's protection
 *   against memory exhaustion); client messages above 16 KiB but below it answer 1004.
 * - `pingInterval` / `pingTimeout` (REALTIME_PING_*): a dead peer is noticed within their sum.
 * - `connectTimeout` (REALTIME_CONNECT_TIMEOUT_MS): a connection that has not completed the
 *   authenticated handshake by then is closed.
 * - CORS from CORS_ORIGINS, as for the HTTP endpoints (no cookies: the token is in `auth`).
 * - `parser`: socket.io's own, except that a handshake whose `auth` is not an object reaches the
 *   middleware to be refused with a code (handshake-parser.ts).
 * - With REDIS_URL, the official Redis adapter: rooms, server-side notices and disconnects
 *   reach every instance (durable events do not depend on it; see docs/realtime.md).
 */
export class RealtimeIoAdapter extends IoAdapter {
  private readonly logger = new Logger('RealtimeIoAdapter');
  private readonly clients: Redis[] = [];

  constructor(
    app: INestApplicationContext,
    private readonly config: AppConfig,
  ) {
    super(app);
  }

  override createIOServer(port: number, options?: ServerOptions): Server {
    const origins = this.config.operations.corsOrigins;
    const server = super.createIOServer(port, {
      ...options,
      path: this.config.realtime.path,
      transports: ['polling', 'websocket'],
      serveClient: false,
      parser: handshakeParser,
      maxHttpBufferSize: SOCKET_MAX_HTTP_BUFFER_BYTES,
      pingInterval: this.config.realtime.pingIntervalMs,
      pingTimeout: this.config.realtime.pingTimeoutMs,
      connectTimeout: this.config.realtime.connectTimeoutMs,
      cors: origins.length
        ? { origin: origins[0] === '*' ? '*' : origins, credentials: false, methods: ['GET', 'POST'] }
        : undefined,
    } as ServerOptions) as Server;
    const url = this.config.messaging.redisUrl;
    if (url)
      server.adapter(
        // requestsTimeout bounds a question to the other instances (the admin dashboard's socket census).
        createAdapter(this.redisClient(url, 'publish'), this.redisClient(url, 'subscribe'), {
          requestsTimeout: 1000,
          key: this.config.messaging.redisPrefix.channels,
        }),
      );
    return server;
  }

  /**
   * The adapter does not await its PUBLISH (or SUBSCRIBE) calls: during a Redis outage each
   * would reject with nobody to catch it, and an unhandled rejection ends the process. The
   * outage is logged instead; sockets on this instance keep working, and durable events still
   * reach other instances through the head check.
   */
  private redisClient(url: string, role: 'publish' | 'subscribe'): Redis {
    // The subscriber's few commands (SUBSCRIBE at start) wait for a connection instead of
    // failing; ioredis subscribes again by itself after a reconnect.
    const client = new Redis(url, {
      maxRetriesPerRequest: role === 'subscribe' ? null : 1,
      retryStrategy: redisReconnectDelay,
    });
    let down = false;
    client.on('error', (error: Error) => {
      if (!down) this.logger.warn(`Redis (${role}) unreachable: ${error.message}`);
      down = true;
    });
    client.on('ready', () => {
      if (down) this.logger.log(`Redis (${role}) reachable again`);
      down = false;
    });
    for (const method of ['publish', 'subscribe', 'psubscribe', 'unsubscribe', 'punsubscribe'] as const) {
      const original = (client[method] as (...args: unknown[]) => Promise<unknown>).bind(client);
      (client as unknown as Record<string, unknown>)[method] = (...args: unknown[]) =>
        original(...args).catch(() => undefined);
    }
    this.clients.push(client);
    return client;
  }

  /**
   * Plain listeners instead of Nest's per-socket RxJS pipelines (a shared disconnect stream and
   * one fromEvent → mergeMap → takeUntil chain per handler): those cost about 10 KB of heap per
   * idle socket. Same contract: the handler's result is the acknowledgement, or an emit when it
   * names an `event`.
   */
  override bindMessageHandlers(
    socket: Socket,
    handlers: MessageMappingProperties[],
    transform: (data: unknown) => Observable<unknown>,
  ): void {
    for (const { message, callback, isAckHandledManually } of handlers) {
      socket.on(message as string, (...args: unknown[]) => {
        const { data, ack } = this.mapPayload(args.length === 1 ? args[0] : args);
        transform(callback(data, ack)).subscribe({
          next: (response) => {
            if (response === undefined || response === null) return;
            const named = response as { event?: string; data?: unknown };
            if (named.event) {
              socket.emit(named.event, named.data);
              return;
            }
            if (!isAckHandledManually && typeof ack === 'function') (ack as (reply: unknown) => void)(response);
          },
          error: (error: unknown) =>
            this.logger.error(`socket handler for ${String(message)} failed: ${(error as Error)?.message}`),
        });
      });
    }
  }

  /** The Redis connections end first: the adapter's UNSUBSCRIBE would otherwise wait for an unreachable Redis. */
  override async close(server: Server): Promise<void> {
    for (const client of this.clients.splice(0)) client.disconnect();
    await super.close(server);
  }
}
