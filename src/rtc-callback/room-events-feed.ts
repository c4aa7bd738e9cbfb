import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock';
import type { StoredRoomEvent } from './room-callback';
import { RtcRoomEventsRepository } from './rtc-room-events.repository';

/**
 * Applies a batch of stored room events, in the order given (the order they were stored per
 * room). Applying must be idempotent: an event applied but not yet marked when the process
 * stops is applied again by the pass, and must then change nothing (calls order each
 * participant's events by time, so an event already applied is as old as the last one).
 * Answers the rooms whose events could not be applied (they are left to the pass).
 */
export type RoomEventsApplier = (events: StoredRoomEvent[]) => Promise<ReadonlySet<string>>;

/** Events taken from the queue at once: the applier reads the rooms' live calls in one statement. */
const BATCH = 200;
/** A callback waits for its answer while this many events are still to apply on this instance. */
export const MAX_QUEUED = 400;
/** The pass leaves events this recent to the instance that stored them. */
export const PASS_GRACE_MS = 5000;

/**
 * The hand-off from the room callback to the calls. A callback is answered once its event is
 * stored (`publish`); this instance then applies the stored events in the background, one
 * batch at a time, in the order they were stored, and marks them applied. Whatever is stored
 * but not applied (the process stopped, or applying failed) is applied by `applyPending`,
 * which the calls' timer pass runs every second on every instance. A room whose events failed
 * is held back here until the pass has applied them, so a room's events never overtake each
 * other. `settle` lets a reader of a call wait for the events this instance has acknowledged.
 */
@Injectable()
export class RoomEventsFeed {
  private readonly logger = new Logger('RoomEvents');
  private applier: RoomEventsApplier | null = null;
  private readonly queue: StoredRoomEvent[] = [];
  /** Per room, the events acknowledged here and not yet done (applied, or left to the pass). */
  private readonly open = new Map<string, number>();
  private readonly held = new Set<string>();
  private draining: Promise<void> | null = null;
  private waiters: Array<{ room: string | null; resolve: () => void }> = [];
  private roomWaiters: Array<() => void> = [];

  constructor(
    private readonly events: RtcRoomEventsRepository,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  subscribe(applier: RoomEventsApplier): void {
    this.applier = applier;
  }

  /**
   * A newly stored event, to apply after its callback is answered. Waits (backpressure) while
   * this instance has many events still to apply, so the backlog, and how late an event is
   * applied, stay bounded.
   */
  async publish(event: StoredRoomEvent): Promise<void> {
    this.open.set(event.roomId, (this.open.get(event.roomId) ?? 0) + 1);
    if (this.held.has(event.roomId)) this.done([event]);
    else this.queue.push(event);
    this.draining ??= this.drain();
    while (this.queue.length > MAX_QUEUED) await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
  }

  /**
   * Waits until the events this instance acknowledged for `roomId` (null: any room) are applied
   * or left to the pass; answers whether there were any to wait for.
   */
  async settle(roomId: string | null = null): Promise<boolean> {
    if (roomId === null ? this.open.size === 0 : !this.open.has(roomId)) return false;
    await new Promise<void>((resolve) => this.waiters.push({ room: roomId, resolve }));
    return true;
  }

  /**
   * Applies the stored events not yet applied that were received `PASS_GRACE_MS` ago or
   * earlier, and those of the rooms held back here, oldest first; answers how many were applied.
   */
  async applyPending(limit = BATCH): Promise<number> {
    if (!this.applier) return 0;
    const held = [...this.held];
    const events = await this.events.pending(this.clock.now() - PASS_GRACE_MS, held, limit);
    if (events.length === 0) {
      for (const room of held) this.held.delete(room);
      return 0;
    }
    const failed = await this.applier(events);
    const applied = events.filter((e) => !failed.has(e.roomId));
    await this.events.markApplied(
      applied.map((e) => e.id),
      this.clock.now(),
    );
    // A held room is released once none of its events is left (the batch may not hold them all).
    if (events.length < limit) for (const room of held) if (!failed.has(room)) this.held.delete(room);
    return applied.length;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, BATCH);
        this.releaseProducers();
        await this.applyBatch(batch);
      }
    } finally {
      this.draining = null;
    }
  }

  private async applyBatch(batch: StoredRoomEvent[]): Promise<void> {
    let failed: ReadonlySet<string>;
    try {
      failed = this.applier ? await this.applier(batch) : new Set(batch.map((e) => e.roomId));
    } catch (error) {
      failed = new Set(batch.map((e) => e.roomId));
      this.logger.warn(`room events could not be applied, left to the pass: ${(error as Error).message}`);
    }
    for (const room of failed) this.held.add(room);
    const applied = batch.filter((e) => !failed.has(e.roomId));
    try {
      await this.events.markApplied(
        applied.map((e) => e.id),
        this.clock.now(),
      );
    } catch (error) {
      // Applied but not marked: the pass applies them again, which changes nothing.
      this.logger.warn(`room events applied but not marked: ${(error as Error).message}`);
    }
    this.done(batch);
  }

  private done(events: StoredRoomEvent[]): void {
    for (const e of events) {
      const left = (this.open.get(e.roomId) ?? 1) - 1;
      if (left > 0) this.open.set(e.roomId, left);
      else this.open.delete(e.roomId);
    }
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) {
      if (w.room === null ? this.open.size === 0 : !this.open.has(w.room)) w.resolve();
      else this.waiters.push(w);
    }
  }

  private releaseProducers(): void {
    if (this.queue.length > MAX_QUEUED) return;
    const waiting = this.roomWaiters;
    this.roomWaiters = [];
    for (const resolve of waiting) resolve();
  }
}
