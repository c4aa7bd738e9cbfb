import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Server } from 'socket.io';
import { APP_CONFIG, AppConfig } from '../config/app-config';

const CENSUS_EVENT = 'census.sockets';
const USER_CENSUS_EVENT = 'census.user_sockets';

export interface SocketCount {
  /** Authenticated connections on every instance that answered. */
  sockets: number;
  /** Instances counted, this one included. */
  instances: number;
  /** False when an instance did not answer in time (its connections are missing from `sockets`). */
  complete: boolean;
}

/**
 * Counts the live connections of every instance for the admin dashboard: this instance's own
 * count, plus each other instance's answer over the socket.io adapter (Redis). Without Redis
 * this instance is the only one.
 */
@Injectable()
export class SocketCensus {
  private readonly logger = new Logger('SocketCensus');
  private server: Server | null = null;
  private local: () => number = () => 0;
  private localOf: (internalId: string) => number = () => 0;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /**
   * `local` counts this instance's authenticated connections (the delivery hub's count),
   * `localOf` one user's among them (the admin console's user page).
   */
  bind(server: Server, local: () => number, localOf: (internalId: string) => number = () => 0): void {
    this.server = server;
    this.local = local;
    this.localOf = localOf;
    server.on(USER_CENSUS_EVENT, (userId: unknown, reply: unknown) => {
      if (typeof userId === 'string' && typeof reply === 'function')
        (reply as (count: number) => void)(this.localOf(userId));
    });
    server.on(CENSUS_EVENT, (reply: unknown) => {
      if (typeof reply === 'function') (reply as (count: number) => void)(this.local());
    });
  }

  async count(): Promise<SocketCount> {
    const local = this.local();
    if (!this.server || !this.config.messaging.redisUrl) return { sockets: local, instances: 1, complete: true };
    let answers: unknown[];
    let complete = true;
    try {
      // The adapter's requestsTimeout (1 s) bounds the wait; an instance that misses it is left out.
      answers = await this.server.serverSideEmitWithAck(CENSUS_EVENT);
    } catch (error) {
      this.logger.debug(`an instance did not answer the socket census: ${(error as Error).message}`);
      answers = (error as { responses?: unknown[] }).responses ?? [];
      complete = false;
    }
    const counts = answers.filter((n): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0);
    return { sockets: local + counts.reduce((sum, n) => sum + n, 0), instances: 1 + counts.length, complete };
  }

  /** One user's live connections on every instance that answered (same rules as `count`). */
  async countOf(internalId: string): Promise<SocketCount> {
    const local = this.localOf(internalId);
    if (!this.server || !this.config.messaging.redisUrl) return { sockets: local, instances: 1, complete: true };
    let answers: unknown[];
    let complete = true;
    try {
      answers = await this.server.serverSideEmitWithAck(USER_CENSUS_EVENT, internalId);
    } catch (error) {
      this.logger.debug(`an instance did not answer the user socket census: ${(error as Error).message}`);
      answers = (error as { responses?: unknown[] }).responses ?? [];
      complete = false;
    }
    const counts = answers.filter((n): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0);
    return { sockets: local + counts.reduce((sum, n) => sum + n, 0), instances: 1 + counts.length, complete };
  }
}
