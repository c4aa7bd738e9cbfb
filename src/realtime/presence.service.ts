import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { AppError } from '../common/app-error';
import type { AuthUser } from '../common/auth-user';
import { Clock } from '../common/clock';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { Relationships } from '../friends/relationships.service';
import { MetricsService } from '../metrics/metrics.service';
import { UsersService } from '../users/users.service';
import { MemoryPresenceRegistry } from './presence/memory-presence-registry';
import {
  PresenceRegistry,
  PresenceState,
  PresenceTransition,
  PresenceUnavailableError,
} from './presence/presence-registry';
import { RedisPresenceRegistry } from './presence/redis-presence-registry';
import { ephemeral, userRoom } from './realtime-events';
import { RealtimeService } from './realtime.service';
import type { SocketSession } from './socket-session';
import type { PresenceQueryDto } from './dto/presence-query.dto';
import type { PresenceQueryReply } from './presence.reply';

/** The crash sweep runs at least this often, so TTL + sweep stays within a minute by default. */
const SWEEP_MAX_MS = 10_000;

/**
 * Online status, counted across devices and instances: `presence.changed` goes to the user's
 * friends when their first connection anywhere opens and when their last one closes. A crashed
 * instance's connections stop being refreshed and expire after REALTIME_PRESENCE_TTL_MS; the
 * sweep (on every instance; each transition is reported once) then announces them offline.
 */
@Injectable()
export class PresenceService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Presence');
  private readonly registry: PresenceRegistry;
  private readonly joined = new WeakMap<SocketSession, Promise<void>>();
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly realtime: RealtimeService,
    private readonly friends: Relationships,
    private readonly users: UsersService,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(Clock) private readonly clock: Clock,
  ) {
    const ttlMs = config.realtime.presenceTtlMs;
    this.registry = config.messaging.redisUrl
      ? new RedisPresenceRegistry(config.messaging.redisUrl, `${config.messaging.redisPrefix.keys}presence:`, ttlMs, {
          commandTimeoutMs: config.operations.redisTimeoutMs,
        })
      : new MemoryPresenceRegistry({ ttlMs });
  }

  onApplicationBootstrap(): void {
    const ttl = this.config.realtime.presenceTtlMs;
    const refresh = setInterval(() => void this.refresh(), Math.floor(ttl / 3));
    const sweep = setInterval(() => void this.sweep(), Math.min(SWEEP_MAX_MS, Math.floor(ttl / 3)));
    refresh.unref();
    sweep.unref();
    this.timers.push(refresh, sweep);
  }

  async onModuleDestroy(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    await this.registry.close();
  }

  connected(session: SocketSession): void {
    const joined = this.registry
      .connected(session.user.internalId, session.socket.id, this.clock.now())
      .then((transition) => this.announce(transition, session.user.externalId))
      .catch((error: unknown) => this.logger.warn(`presence connect failed: ${(error as Error).message}`))
      .finally(() => this.joined.delete(session));
    this.joined.set(session, joined);
  }

  /** After its own connect was recorded, so a quick connect and disconnect cannot cross. */
  disconnected(session: SocketSession): void {
    void (this.joined.get(session) ?? Promise.resolve())
      .then(() => this.registry.disconnected(session.user.internalId, session.socket.id, this.clock.now()))
      .then((transition) => this.announce(transition, session.user.externalId))
      .catch((error: unknown) => this.logger.warn(`presence disconnect failed: ${(error as Error).message}`));
  }

  private async refresh(): Promise<void> {
    const connections: Array<{ userId: string; connectionId: string }> = [];
    for (const userId of this.realtime.hub.users()) {
      for (const session of this.realtime.hub.sessionsOf(userId))
        connections.push({ userId, connectionId: session.socket.id });
    }
    await this.registry.refresh(connections, this.clock.now());
  }

  private async sweep(): Promise<void> {
    try {
      const transitions = await this.registry.sweep(this.clock.now());
      if (transitions.length === 0) return;
      const users = new Map(
        (await this.users.findByIds(transitions.map((t) => t.userId))).map((u) => [String(u.id), u.externalId]),
      );
      // Each on its own: the sweep has already dropped these users, so a failed announcement is
      // not retried, but it never costs the others theirs.
      for (const transition of transitions) {
        const externalId = users.get(transition.userId);
        if (!externalId) continue;
        try {
          await this.announce(transition, externalId);
        } catch (error) {
          this.metrics.backgroundItemFailures.inc({ pass: 'presence_sweep' });
          this.logger.warn(
            `presence sweep: announcing user ${transition.userId} offline failed: ${(error as Error).message}`,
          );
        }
      }
    } catch (error) {
      this.logger.warn(`presence sweep failed: ${(error as Error).message}`);
    }
  }

  /** Whether the user has a live connection on any instance; null when the shared store does not answer. */
  async stateOf(internalId: string): Promise<PresenceState | null> {
    try {
      return (await this.registry.stateOf([internalId], this.clock.now())).get(internalId) ?? null;
    } catch (error) {
      if (error instanceof PresenceUnavailableError) return null;
      throw error;
    }
  }

  /**
   * Which of the users have a live connection on any instance (offline push skips them). When
   * the shared store does not answer, nobody counts as online: a notification too many beats a
   * message nobody hears of.
   */
  async onlineAmong(internalIds: readonly string[]): Promise<Set<string>> {
    if (internalIds.length === 0) return new Set();
    try {
      const states = await this.registry.stateOf(internalIds, this.clock.now());
      return new Set([...states].filter(([, state]) => state.online).map(([id]) => id));
    } catch (error) {
      if (error instanceof PresenceUnavailableError) return new Set();
      throw error;
    }
  }

  /**
   * onlineAmong for the admin console's "online now" filter, which must not pass an outage off
   * as "nobody is online": 1001 (unavailable) when the shared store does not answer.
   */
  async onlineAmongOrFail(internalIds: readonly string[]): Promise<Set<string>> {
    if (internalIds.length === 0) return new Set();
    try {
      const states = await this.registry.stateOf(internalIds, this.clock.now());
      return new Set([...states].filter(([, state]) => state.online).map(([id]) => id));
    } catch (error) {
      if (error instanceof PresenceUnavailableError) throw AppError.unavailable('the presence store did not answer');
      throw error;
    }
  }

  /**
   * The asked users' presence, for those who are the caller's friends (presence is shared with
   * friends only, as presence.changed is), in the order asked.
   */
  async query(user: AuthUser, dto: PresenceQueryDto): Promise<PresenceQueryReply> {
    const [asked, friendIds] = await Promise.all([
      this.users.findByExternalIds(dto.user_ids),
      this.friends.presenceVisibleTo(user.internalId),
    ]);
    const friends = new Set(friendIds);
    const internalOf = new Map(asked.filter((u) => friends.has(u.id)).map((u) => [u.externalId, u.id]));
    const wanted = dto.user_ids.filter((id) => internalOf.has(id));
    if (!wanted.length) return { items: [] };
    let states: Map<string, PresenceState>;
    try {
      states = await this.registry.stateOf(
        wanted.map((id) => internalOf.get(id)!),
        this.clock.now(),
      );
    } catch (error) {
      if (error instanceof PresenceUnavailableError) throw AppError.unavailable('the presence store did not answer');
      throw error;
    }
    return {
      items: wanted.map((externalId) => {
        const state = states.get(internalOf.get(externalId)!);
        return {
          user_id: externalId,
          online: state?.online ?? false,
          last_seen_at: state?.online ? null : (state?.lastSeenAt ?? null),
        };
      }),
    };
  }

  private async announce(transition: PresenceTransition | null, externalId: string): Promise<void> {
    if (!transition) return;
    const friendIds = await this.friends.presenceAudience(transition.userId);
    this.realtime.emitToRooms(
      friendIds.map(userRoom),
      ephemeral(
        'presence.changed',
        { user_id: externalId, online: transition.online, last_seen_at: transition.lastSeenAt },
        this.clock.now(),
      ),
    );
  }
}
