import { Inject, Injectable, Logger } from '@nestjs/common';
import { hostname } from 'node:os';
import type { Server } from 'socket.io';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { ConnectionDevice } from './socket-device';
import { ConnectionAnswer, UserConnections, answerOf, mergeConnections, readAnswer } from './user-connections';

export type { ListedConnection, UserConnections } from './user-connections';

const CENSUS_EVENT = 'census.sockets';
// Answered with a count: kept for instances of the previous version still asking it.
const USER_CENSUS_EVENT = 'census.user_sockets';
const USER_CONNECTIONS_EVENT = 'census.user_connections';

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
  private localOf: (internalId: string) => ConnectionDevice[] = () => [];
  /** This instance in the user census: host name and process ID, as an operator finds it in logs. */
  readonly instance = `${hostname()}:${process.pid}`.slice(0, 64);

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /**
   * `local` counts this instance's authenticated connections (the delivery hub's count),
   * `localOf` one user's among them (the admin console's user page).
   */
  bind(server: Server, local: () => number, localOf: (internalId: string) => ConnectionDevice[] = () => []): void {
    this.server = server;
    this.local = local;
    this.localOf = localOf;
    server.on(USER_CENSUS_EVENT, (userId: unknown, reply: unknown) => {
      if (typeof userId === 'string' && typeof reply === 'function')
        (reply as (count: number) => void)(this.localOf(userId).length);
    });
    server.on(USER_CONNECTIONS_EVENT, (userId: unknown, reply: unknown) => {
      if (typeof userId === 'string' && typeof reply === 'function')
        (reply as (answer: ConnectionAnswer) => void)(answerOf(this.instance, this.localOf(userId)));
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

  /**
   * One user's live connections on every instance that answered (same rules as `count`), the
   * newest listed with their device. An instance of the previous version does not know the
   * question: it counts as not answering (`complete: false`).
   */
  async connectionsOf(internalId: string): Promise<UserConnections> {
    const answers: ConnectionAnswer[] = [answerOf(this.instance, this.localOf(internalId))];
    let complete = true;
    if (this.server && this.config.messaging.redisUrl) {
      let others: unknown[];
      try {
        others = await this.server.serverSideEmitWithAck(USER_CONNECTIONS_EVENT, internalId);
      } catch (error) {
        this.logger.debug(`an instance did not answer the user connection census: ${(error as Error).message}`);
        others = (error as { responses?: unknown[] }).responses ?? [];
        complete = false;
      }
      for (const other of others) {
        const answer = readAnswer(other);
        if (answer) answers.push(answer);
        else complete = false;
      }
    }
    return { ...mergeConnections(answers), instances: answers.length, complete };
  }
}
