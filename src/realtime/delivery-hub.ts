import { Logger } from '@nestjs/common';
import type { DurableEventType } from '../contract/events';
import type { SequencedBatch, SequencedEvent, SequencedEventOf } from '../outbox/deliverable-event';
import type { EventStream } from '../outbox/event-stream.service';
import type { MetricsService } from '../metrics/metrics.service';
import { DurableEventFrame, RecipientFrame } from './event-frame';
import type { PositionTokens } from './position-token';
import type { SocketSession } from './socket-session';

const READ_PAGE = 500;

/**
 * This instance's live delivery: which local sockets belong to which user, and how far the
 * global delivery sequence has been handed to them (`seen`).
 *
 * Batches sequenced here arrive in memory; batches sequenced by another instance are known
 * only by their head (a socket.io server-side message, or the periodic head check) and are
 * read back from the database in position order. Either way every position is processed once
 * and in order, so each socket's cursor only grows.
 */
export class DeliveryHub {
  private readonly logger = new Logger('DeliveryHub');
  private readonly byUser = new Map<string, Set<SocketSession>>();
  private seen: bigint | null = null;
  private target = 0n;
  private reading: Promise<void> | null = null;
  private readonly delivered: Record<'live' | 'replay', { inc(value?: number): void }>;

  constructor(
    private readonly stream: Pick<EventStream, 'sequencedBetween'>,
    private readonly tokens: PositionTokens,
    private readonly metrics: MetricsService,
  ) {
    this.delivered = {
      live: metrics.realtimeDeliveries.labels('live'),
      replay: metrics.realtimeDeliveries.labels('replay'),
    };
  }

  get sockets(): number {
    let n = 0;
    for (const set of this.byUser.values()) n += set.size;
    return n;
  }

  /** The highest position handed to local sockets (where a new connection's live stream starts). */
  get position(): bigint {
    return this.seen ?? 0n;
  }

  users(): string[] {
    return [...this.byUser.keys()];
  }

  sessionsOf(userId: string): ReadonlySet<SocketSession> {
    return this.byUser.get(userId) ?? new Set();
  }

  get started(): boolean {
    return this.seen !== null;
  }

  /** Starts from the current head: what was sequenced before this instance started is resume's. */
  start(head: string): void {
    if (this.seen === null) this.seen = BigInt(head);
    if (this.target < this.seen) this.target = this.seen;
  }

  add(session: SocketSession): void {
    const set = this.byUser.get(session.user.internalId) ?? new Set<SocketSession>();
    set.add(session);
    this.byUser.set(session.user.internalId, set);
    this.metrics.realtimeSockets.set(this.sockets);
  }

  remove(session: SocketSession): void {
    const set = this.byUser.get(session.user.internalId);
    if (!set) return;
    set.delete(session);
    if (set.size === 0) this.byUser.delete(session.user.internalId);
    this.metrics.realtimeSockets.set(this.sockets);
  }

  /** A batch this instance sequenced: delivered from memory when it continues where we are. */
  accept(batch: SequencedBatch): void {
    const after = BigInt(batch.after);
    const upTo = BigInt(batch.upTo);
    if (this.seen === null || (after === this.seen && !this.reading)) {
      this.deliverAll(batch.events);
      this.seen = upTo;
      if (this.target < upTo) this.target = upTo;
      return;
    }
    this.advance(batch.upTo);
  }

  /** The sequence reached `head` somewhere: read what this instance has not handed out yet. */
  advance(head: string): void {
    const target = BigInt(head);
    if (target > this.target) this.target = target;
    if (this.reading || this.seen === null || this.seen >= this.target) return;
    this.reading = this.catchUp()
      .catch((error: unknown) =>
        this.logger.error(`live delivery failed: ${(error as Error).message}`, (error as Error).stack),
      )
      .finally(() => {
        this.reading = null;
      });
  }

  private async catchUp(): Promise<void> {
    while (this.seen !== null && this.seen < this.target) {
      if (this.byUser.size === 0) {
        // Nobody to hand anything to here; new sockets start from resume.
        this.seen = this.target;
        return;
      }
      // The bound is fixed before the read: the target may rise while it runs, and what lies
      // above this bound was not read.
      const upTo = this.target;
      let events: SequencedEvent[];
      try {
        events = await this.stream.sequencedBetween(String(this.seen), String(upTo), READ_PAGE);
      } catch (error) {
        // The next head check retries from the same point.
        this.logger.warn(`reading sequenced events failed: ${(error as Error).message}`);
        return;
      }
      this.deliverAll(events);
      this.seen = events.length === READ_PAGE ? BigInt(events[events.length - 1].position) : upTo;
    }
  }

  private deliverAll(events: SequencedEvent[]): void {
    let delivered = 0;
    for (const event of events) delivered += this.deliverEvent(event);
    if (delivered) this.delivered.live.inc(delivered);
  }

  /** One event to the local sockets of its recipients: encoded once, then one token and write per socket. */
  private deliverEvent<T extends DurableEventType>(event: SequencedEventOf<T>): number {
    let frame: DurableEventFrame<T> | null = null;
    let delivered = 0;
    for (const recipient of event.recipients) {
      const sessions = this.byUser.get(recipient.userId);
      if (!sessions) continue;
      frame ??= new DurableEventFrame(event, BigInt(event.position));
      const own = frame.for(recipient.private);
      let token: string | null = null;
      for (const session of sessions) {
        if (!session.live) {
          session.pending.push(own);
          continue;
        }
        if (own.position <= session.cursor) continue;
        token ??= this.token(recipient.userId, own);
        session.cursor = own.position;
        own.send(session.socket, token);
        delivered += 1;
      }
    }
    return delivered;
  }

  /** The user's resume point at this event. */
  token(userId: string, frame: RecipientFrame): string {
    return this.tokens.encode(userId, frame.position, frame.createdAt);
  }

  /** One event to one socket outside live delivery (a replay, or what waited while it ran). */
  send(session: SocketSession, frame: RecipientFrame, via: 'live' | 'replay'): void {
    session.cursor = frame.position;
    frame.send(session.socket, this.token(session.user.internalId, frame));
    this.delivered[via].inc();
  }
}
