import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { createHmac, randomUUID } from 'node:crypto';
import { AppError } from '../common/app-error';
import { Scrubber } from '../common/scrubbing/scrub';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { ClientAck } from '../contract/events';
import { Lifecycle } from '../health/lifecycle';
import { RateLimiter } from '../common/rate-limit/rate-limiter';
import { ImTokenService } from '../im-token/im-token.service';
import { MetricsService } from '../metrics/metrics.service';
import { EventStream } from '../outbox/event-stream.service';
import { UserAccessEvents } from '../users/user-access-events';
import { RuntimeSettingsService } from '../settings/runtime-settings.service';
import { UsersService } from '../users/users.service';
import { ack, ackOf, checkClientMessage } from './client-messages';
import { EphemeralEnvelope, emitEphemeral, refusalOf, userRoom } from './realtime-events';
import { DeliveryHub } from './delivery-hub';
import { replayFrame } from './event-frame';
import { AUTH_NOT_OBJECT, MarkedAuth } from './handshake-parser';
import { PositionTokens } from './position-token';
import { SessionEnds } from './session-ends';
import { ImServer, ImSocket, SocketSession } from './socket-session';
import { ConnectionDevice, TrustProxy, clientAddress, readDevice, shortUserAgent } from './socket-device';

const REPLAY_PAGE = 1000;
/** How often each instance reads the sequence head (a missed cross-instance notice costs at most this). */
const HEAD_POLL_MS = 1000;
/** How often connections are checked for an expired token. */
const EXPIRY_CHECK_MS = 1000;
const SERVER_HEAD_EVENT = 'outbox.head';
/**
 * Backlog reads one instance runs at once; more connections wait their turn (a reconnect storm must not flood the
 * database).
 */
const CONCURRENT_REPLAYS = 8;

/**
 * Connections of the real-time gateway: the handshake, replay of what a client missed, live
 * delivery through the DeliveryHub, credential renewal, expiry and revocation.
 */
@Injectable()
export class RealtimeService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Realtime');
  readonly hub: DeliveryHub;
  readonly tokens: PositionTokens;
  private readonly ends: SessionEnds;
  private server: ImServer | null = null;
  private timers: NodeJS.Timeout[] = [];
  private replays = 0;
  private replayQueue: Array<() => void> = [];
  private readonly scrubber: Scrubber;

  constructor(
    private readonly imTokens: ImTokenService,
    private readonly stream: EventStream,
    private readonly users: UsersService,
    private readonly metrics: MetricsService,
    private readonly lifecycle: Lifecycle,
    private readonly limiter: RateLimiter,
    accessEvents: UserAccessEvents,
    settings: RuntimeSettingsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(Clock) private readonly clock: Clock,
    private readonly http: HttpAdapterHost,
  ) {
    this.scrubber = Scrubber.forConfig(config);
    // Resume points are bound to the user with a key derived from the token secret.
    this.tokens = new PositionTokens(
      createHmac('sha256', config.jwtSecret || 'development')
        .update('im-realtime-position-v1')
        .digest(),
    );
    this.hub = new DeliveryHub(stream, this.tokens, metrics);
    this.ends = new SessionEnds(this.hub, users, clock, () => this.server);
    accessEvents.subscribe((userId, change, msg) => this.ends.revoke(userId, change, msg));
    // Each instance sees the switch at its own refresh and ends its own sockets.
    settings.onChange((now, before) => {
      if (before.sdkEnabled && !now.sdkEnabled) this.ends.endAll(ErrorCode.SDK_DISABLED);
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    try {
      this.hub.start(await this.stream.head());
    } catch (error) {
      // The database is not there yet: the first head check starts the hub.
      this.logger.warn(`could not read the delivery head at start: ${(error as Error).message}`);
    }
    this.stream.onSequenced((batch) => {
      this.hub.accept(batch);
      // Only the Redis adapter has other instances to tell (the in-memory one warns on every call).
      if (this.config.messaging.redisUrl) this.server?.serverSideEmit(SERVER_HEAD_EVENT, batch.upTo);
    });
    const poll = setInterval(() => void this.pollHead(), HEAD_POLL_MS);
    const expiry = setInterval(() => this.ends.expire(), EXPIRY_CHECK_MS);
    expiry.unref();
    this.timers.push(expiry);
    const sweep = setInterval(() => void this.ends.sweep(), Math.max(this.config.authCacheMs, 1000));
    poll.unref();
    sweep.unref();
    this.timers.push(poll, sweep);
  }

  onModuleDestroy(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.disconnectAll();
  }

  /** Wires the socket.io server: the handshake check and the notices of other instances. */
  bind(server: ImServer): void {
    this.server = server;
    server.use((socket, next) => {
      this.handshake(socket).then(
        () => next(),
        (error: unknown) => {
          const refusal = refusalOf(error, this.logger);
          this.metrics.realtimeRefusals.inc({ stage: 'handshake', code: String(refusal.code) });
          next(Object.assign(new Error(refusal.msg), { data: { code: refusal.code, msg: refusal.msg } }));
        },
      );
    });
    server.on(SERVER_HEAD_EVENT, (head: unknown) => {
      if (typeof head === 'string' && /^[0-9]{1,19}$/.test(head)) this.hub.advance(head);
    });
  }

  /**
   * The token travels in `auth.token` only: a token in the query string ends up in access logs
   * and proxies, so its presence alone is refused, even beside a valid `auth.token`.
   */
  private async handshake(socket: ImSocket): Promise<void> {
    if (this.lifecycle.shuttingDown) throw AppError.unavailable('this instance is shutting down');
    const query = socket.handshake.query as Record<string, unknown>;
    if (Object.prototype.hasOwnProperty.call(query, 'token'))
      throw AppError.invalid(
        'token',
        'must be sent in the handshake auth object (auth.token), never in the query string',
      );
    const auth = (socket.handshake.auth ?? {}) as MarkedAuth;
    const notObject = auth[AUTH_NOT_OBJECT];
    if (notObject)
      throw new AppError(
        ErrorCode.TOKEN_MISSING,
        `token missing: auth must be an object holding the IM token as auth.token (got ${notObject})`,
      );
    const token = auth.token;
    if (token === undefined || token === null || token === '')
      throw new AppError(ErrorCode.TOKEN_MISSING, 'token missing: pass the IM token as auth.token');
    if (typeof token !== 'string' || token.length > 4096) throw new AppError(ErrorCode.TOKEN_INVALID, 'token invalid');
    const device = this.deviceOf(socket, auth.device);
    const verified = await this.imTokens.authenticate(token);
    const limits = this.config.realtime;
    if (this.hub.sessionsOf(verified.user.internalId).size >= limits.maxSocketsPerUser) {
      throw new AppError(
        ErrorCode.TOO_FAST,
        `too many connections: at most ${limits.maxSocketsPerUser} per user on one instance`,
      );
    }
    if (
      !(await this.limiter.hit(`rt-connect:${verified.user.internalId}`, {
        limit: limits.connectsPerMinute,
        windowMs: 60_000,
      }))
    ) {
      throw new AppError(
        ErrorCode.TOO_FAST,
        `too many connection attempts: at most ${limits.connectsPerMinute} per minute per user; reconnect with backoff`,
      );
    }
    // Before the hub has read the head (the database was away at start), a fresh connection
    // would be given position 0, from which a resume would replay everything retained.
    if (!this.hub.started) this.hub.start(await this.stream.head());
    socket.data.auth = verified;
    socket.data.resumeFrom = auth.position;
    socket.data.device = device;
  }

  /** The device the client named (refused when malformed), its User-Agent in short and its address. */
  private deviceOf(socket: ImSocket, named: unknown): ConnectionDevice {
    const has = (value: string) => this.scrubber.hasCredential(value);
    const request = socket.request;
    // Express's own compiled TRUST_PROXY, so a socket's address is the one its HTTP requests get.
    const express = this.http.httpAdapter?.getInstance?.() as { get?: (name: string) => unknown } | undefined;
    const trust = express?.get?.('trust proxy fn');
    return {
      ...readDevice(named, has),
      userAgent: shortUserAgent(request.headers['user-agent'], has),
      address: clientAddress(
        request.socket?.remoteAddress,
        request.headers['x-forwarded-for'],
        typeof trust === 'function' ? (trust as TrustProxy) : () => false,
      ),
      connectedAt: this.clock.now(),
    };
  }

  /** A socket passed the handshake: replay what it missed, then go live and say so. */
  async connected(socket: ImSocket, onSession: (session: SocketSession) => void = () => undefined): Promise<void> {
    const { auth, device } = socket.data;
    if (!auth || !device) {
      socket.disconnect(true);
      return;
    }
    const session = new SocketSession(socket, auth.user, auth.expireAt, auth.tokenVersion, device);
    socket.data.session = session;
    void socket.join(userRoom(auth.user.internalId));
    socket.use((packet, next) => {
      const verdict = checkClientMessage(session, packet, this.clock.now(), this.config.realtime.clientMessagesPer10s);
      if (verdict.ok) return next();
      this.metrics.realtimeRefusals.inc({ stage: 'message', code: String(verdict.refusal.code) });
      ackOf(packet)?.(verdict.refusal);
    });
    // Registered before reading the backlog: whatever the hub hands out from here on waits in
    // `pending`, and whatever it handed out before is in the backlog read below.
    session.cursor = this.hub.position;
    this.hub.add(session);
    onSession(session);
    const progress = { replayed: 0 };
    let resumed = false;
    const from = this.resumePoint(session, socket.data.resumeFrom);
    if (from !== null) {
      await this.replaySlot();
      try {
        // Events committed before this connection but not yet numbered belong to the replay.
        await this.stream.flush();
        const behind = await this.stream.countForUser(
          session.user.internalId,
          String(from),
          this.config.realtime.backlogEvents + 1,
        );
        if (behind <= this.config.realtime.backlogEvents && !session.closed) {
          resumed = true;
          session.cursor = from;
          await this.replay(session, from, progress);
        }
      } catch (error) {
        // The backlog could not be read (whole): the client falls back to sync, as after any
        // resumed:false; what was already sent is counted in `replayed`.
        this.logger.warn(`replay failed: ${(error as Error).message}`);
        resumed = false;
      } finally {
        this.releaseReplaySlot();
      }
    }
    let replayed = progress.replayed;
    if (session.closed) return;
    // Resumed: what arrived meanwhile is part of the replay, before ready. Not resumed: ready
    // comes first (only counted replays may precede it), and what arrived meanwhile follows live.
    if (resumed) replayed += this.flushPending(session, 'replay');
    const now = this.clock.now();
    socket.emit('connection.ready', {
      event_id: randomUUID(),
      position: this.tokens.encode(session.user.internalId, session.cursor, now),
      server_time: now,
      resumed,
      replayed,
    });
    this.flushPending(session, 'live');
    session.live = true;
  }

  private flushPending(session: SocketSession, via: 'replay' | 'live'): number {
    let count = 0;
    for (const frame of session.pending) {
      if (frame.position <= session.cursor) continue;
      this.hub.send(session, frame, via);
      count += 1;
    }
    session.pending = [];
    return count;
  }

  /** The client's resume point, or null when absent, malformed, foreign or older than the backlog. */
  private resumePoint(session: SocketSession, given: unknown): bigint | null {
    if (given === undefined || given === null) return null;
    const point = this.tokens.decode(session.user.internalId, given);
    if (!point) return null;
    if (point.at < this.clock.now() - this.config.realtime.backlogSeconds * 1000) return null;
    return point.position;
  }

  private async replay(session: SocketSession, from: bigint, progress: { replayed: number }): Promise<void> {
    let after = from;
    for (;;) {
      const page = await this.stream.listForUser(session.user.internalId, String(after), REPLAY_PAGE);
      if (session.closed) return;
      for (const event of page) {
        const frame = replayFrame(event);
        if (frame.position <= session.cursor) continue;
        this.hub.send(session, frame, 'replay');
        progress.replayed += 1;
      }
      if (page.length < REPLAY_PAGE) return;
      after = BigInt(page[page.length - 1].position);
    }
  }

  private replaySlot(): Promise<void> {
    if (this.replays < CONCURRENT_REPLAYS) {
      this.replays += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.replayQueue.push(resolve));
  }

  private releaseReplaySlot(): void {
    const next = this.replayQueue.shift();
    if (next) next();
    else this.replays -= 1;
  }

  disconnected(socket: ImSocket, onSession: (session: SocketSession) => void = () => undefined): void {
    const session = socket.data.session;
    if (!session) return;
    session.closed = true;
    this.hub.remove(session);
    onSession(session);
  }

  /** Renewal on a live connection (5.7): same user only; anything else changes nothing. */
  async renew(socket: ImSocket, token: string): Promise<ClientAck> {
    const session = socket.data.session;
    if (!session) return ack(ErrorCode.TOKEN_INVALID, 'token invalid');
    try {
      const verified = await this.imTokens.authenticate(token);
      if (session.closed) return ack(ErrorCode.TOKEN_INVALID, 'the connection has closed');
      if (verified.user.internalId !== session.user.internalId)
        return ack(ErrorCode.TOKEN_INVALID, 'token: belongs to another user; reconnect to change identity');
      session.expireAt = verified.expireAt;
      session.tokenVersion = verified.tokenVersion;
      return ack(ErrorCode.OK, 'ok');
    } catch (error) {
      return refusalOf(error, this.logger);
    }
  }

  private async pollHead(): Promise<void> {
    try {
      const head = await this.stream.head();
      this.hub.start(head);
      this.hub.advance(head);
    } catch {
      // The database is away; the next poll tries again.
    }
  }

  /** An ephemeral event to every socket of these users, on every instance. */
  emitToRooms(rooms: string[], envelope: EphemeralEnvelope): void {
    if (!this.server || rooms.length === 0) return;
    emitEphemeral(this.server.to(rooms), envelope);
  }

  /** Authenticated connections on this instance. */
  get localSockets(): number {
    return this.hub.sockets;
  }

  /** Shutdown: clients reconnect (to another instance) and resume. */
  disconnectAll(): void {
    this.server?.local.disconnectSockets(true);
  }
}
