import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { FailureBackoff } from '../common/failure-backoff';
import { TransactionRunner } from '../database/transaction-runner';
import { MetricsService } from '../metrics/metrics.service';
import type { RoomEvent, StoredRoomEvent } from '../rtc-callback/room-callback';
import { RoomEventsFeed } from '../rtc-callback/room-events-feed';
import { CallEndReason, CallEntity } from './call.entity';
import { CallContext, CallRecorder } from './call-recorder.service';
import { CallsRepository, DueCall } from './calls.repository';
import { internalUserIdOf } from './user-sig';

/** TRTC room events: 102 room closed, 103 user entered, 104 user left. */
const ROOM_CLOSED = 102;
const ENTERED = 103;
const LEFT = 104;
/** An ongoing call whose room reports nobody for this long ends as `interrupted`. */
export const EMPTY_ROOM_MS = 60_000;
/** An ended call frees its room at the latest this long after the end, if nobody reported leaving it. */
const ROOM_HOLD_MS = 10 * 60_000;
/** Events stamped this long before a call started belong to an earlier use of the room number. */
const ROOM_CLOCK_SKEW_MS = 30_000;
/** A stamp known only to the second counts as that second's last millisecond (see orderStamp). */
const LAST_MS_OF_SECOND = 999;
const TIMER_MS = 1000;
const TIMER_BATCH = 100;

/** Applying room events needs the context read before the lock (see applyToCall). */
class ContextNeeded extends Error {}

/**
 * The provider's room callbacks and the server's timers drive the calls: who is in the room,
 * and the ends that no client reports (ringing nobody answered, a room left empty, a room
 * closed). Callbacks may arrive late, twice or out of order: each participant keeps the time
 * of the last room event applied, and an older one changes nothing.
 */
@Injectable()
export class CallRoomEventsService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('CallTimers');
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  /** Per timer, the calls that failed, kept out of the passes for a growing while. */
  private readonly backoff = {
    ringing: new FailureBackoff(),
    empty: new FailureBackoff(),
    release: new FailureBackoff(),
  };

  constructor(
    private readonly calls: CallsRepository,
    private readonly recorder: CallRecorder,
    private readonly tx: TransactionRunner,
    private readonly metrics: MetricsService,
    private readonly feed: RoomEventsFeed,
    @Inject(Clock) private readonly clock: Clock,
  ) {
    feed.subscribe((events) => this.applyRoomEvents(events));
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.runTimers(), TIMER_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /**
   * Applies a batch of stored room events (RoomEventsFeed), in their order per room: the live
   * calls of all their rooms are read at once, then each call's events are applied in one
   * transaction under its lock, the calls side by side. Answers the rooms whose events failed;
   * the feed leaves those to the pass (applyPending), which tries them again.
   */
  async applyRoomEvents(events: StoredRoomEvent[]): Promise<ReadonlySet<string>> {
    const byRoom = new Map<string, StoredRoomEvent[]>();
    for (const event of events) {
      const list = byRoom.get(event.roomId);
      if (list) list.push(event);
      else byRoom.set(event.roomId, [event]);
    }
    const failed = new Set<string>();
    const calls = await this.calls.findByLiveRooms([...byRoom.keys()]);
    await Promise.all(
      calls.map(async (call) => {
        const roomId = call.liveRoomId!;
        try {
          await this.applyToCall(call, roomId, byRoom.get(roomId) ?? []);
        } catch (error) {
          failed.add(roomId);
          this.metrics.backgroundItemFailures.inc({ pass: 'room_events' });
          this.logger.warn(`call ${call.callId}: room events failed, retried by the pass: ${(error as Error).message}`);
        }
      }),
    );
    return failed;
  }

  /**
   * The events of one room, in order, applied to the call holding it, in one transaction. The
   * context is built under the lock from what this instance knows (external IDs are cached);
   * when an external ID is missing, or an event would end the call (the summary message needs
   * the caller's view of the conversation), the transaction is undone, the full context read
   * (as every change of a call reads it, before locking) and the events applied again.
   */
  private async applyToCall(call: CallEntity, roomId: string, events: RoomEvent[]): Promise<void> {
    // Events stamped well before the call started belong to an earlier use of the room number.
    const ours = events.filter((e) => orderStamp(e) >= call.startedAt - ROOM_CLOCK_SKEW_MS);
    if (ours.length === 0) return;
    let read: CallContext | null = null;
    for (;;) {
      try {
        await this.tx.run(async (manager) => {
          const locked = await this.calls.lock(manager, call.id);
          if (!locked) return;
          const participants = await this.calls.participantsOf(locked.id, manager);
          const externalIds = read?.externalIds ?? this.recorder.knownExternalIds(locked, participants);
          if (!externalIds) throw new ContextNeeded();
          const context: CallContext = {
            call: locked,
            participants,
            externalIds,
            callerView: read?.callerView ?? null,
          };
          // Stops where the room is freed (a close, or the last one out after the end): what follows is not this call's.
          for (const event of ours) {
            if (context.call.liveRoomId !== roomId) return;
            await this.applyOne(manager, context, event, read !== null);
          }
        });
        return;
      } catch (error) {
        if (!(error instanceof ContextNeeded) || read) throw error;
        read = await this.recorder.context(call);
      }
    }
  }

  /** One room event, under the call's lock. */
  private async applyOne(
    manager: EntityManager,
    context: CallContext,
    event: RoomEvent,
    mayEnd: boolean,
  ): Promise<void> {
    const eventMs = orderStamp(event);
    const locked = context.call;
    const now = this.clock.now();
    if (event.eventType === ROOM_CLOSED) {
      // Ordered against the room's participant events: someone entering or leaving after it
      // is newer state. At the same millisecond the close is taken to come last.
      if (context.participants.some((p) => p.roomEventMs > eventMs)) return;
      for (const p of context.participants) {
        if (p.roomEventMs === eventMs && !p.inRoom) continue;
        Object.assign(p, { inRoom: false, roomEventMs: eventMs, updatedAt: now });
        await this.calls.updateParticipant(manager, p.id, {
          inRoom: false,
          roomEventMs: eventMs,
          updatedAt: now,
        });
      }
      if (this.calls.isLive(locked)) {
        if (!mayEnd) throw new ContextNeeded();
        await this.recorder.end(manager, context, 'ended_by_server', now);
      }
      if (!context.participants.some((p) => p.inRoom)) await this.freeRoom(manager, context, now);
      return;
    }
    const userId = event.providerUserId === null ? null : internalUserIdOf(event.providerUserId);
    const me = context.participants.find((p) => p.userId === userId);
    // Only participants hold credentials for the room; anyone else is not ours to track.
    if (!me || me.roomEventMs >= eventMs) return;
    const entered = event.eventType === ENTERED;
    if (event.eventType !== ENTERED && event.eventType !== LEFT) return;
    const external = context.externalIds.get(me.userId) ?? '';
    const live = this.calls.isLive(locked);
    const wasJoined = me.state === 'joined';
    // One write of the participant row: the room presence and, while the call lives, joining or leaving it.
    const changes: Partial<typeof me> = { inRoom: entered, roomEventMs: eventMs, updatedAt: now };
    if (live && entered && me.state !== 'joined')
      Object.assign(changes, { state: 'joined', joinedAt: me.joinedAt ?? now, leftAt: null });
    if (live && !entered && me.state === 'joined') Object.assign(changes, { state: 'left', leftAt: now });
    Object.assign(me, changes);
    await this.calls.updateParticipant(manager, me.id, changes);
    if (!live) {
      // After the end only the room's occupancy matters: the room is free once it is empty.
      if (!context.participants.some((p) => p.inRoom)) await this.freeRoom(manager, context, now);
      return;
    }
    if (entered) {
      await this.enter(manager, context, me.role, now);
      await this.recorder.emit(
        manager,
        'call.participant_joined',
        context.call,
        context.participants,
        context.externalIds,
        { user_id: external },
        now,
      );
      return;
    }
    await this.recorder.emit(
      manager,
      'call.participant_left',
      context.call,
      context.participants,
      context.externalIds,
      { user_id: external },
      now,
    );
    await this.afterLeave(manager, context, wasJoined, now, mayEnd);
  }

  private async freeRoom(manager: EntityManager, context: CallContext, now: number): Promise<void> {
    context.call.liveRoomId = null;
    context.call.updatedAt = now;
    await this.calls.updateCall(manager, context.call.id, { liveRoomId: null, updatedAt: now });
  }

  /**
   * Entering the room is joining the call, also without an accept (a group member who joined
   * from another screen): a callee entering makes a ringing call ongoing; anyone entering ends
   * the room's emptiness.
   */
  private async enter(manager: EntityManager, context: CallContext, role: string, now: number): Promise<void> {
    const ringing = context.call.state === 'ringing' && role === 'callee';
    if (!ringing && context.call.emptySince === null) return;
    const changes = ringing
      ? { state: 'ongoing' as const, acceptedAt: now, ringDeadline: null, emptySince: null, updatedAt: now }
      : { emptySince: null, updatedAt: now };
    Object.assign(context.call, changes);
    await this.calls.updateCall(manager, context.call.id, changes);
  }

  /**
   * After a participant left the room of a live call. One-to-one, either side leaving ends it:
   * as `canceled` while it rings (only the caller has joined then: leaving is giving up before
   * an answer), as `hangup` once answered. A group call ends the same way when its last joined
   * participant has left, and otherwise notes since when its room is empty.
   */
  private async afterLeave(
    manager: EntityManager,
    context: CallContext,
    wasJoined: boolean,
    now: number,
    mayEnd = true,
  ): Promise<void> {
    const call = context.call;
    if (wasJoined && (!call.isGroup || !context.participants.some((p) => p.state === 'joined'))) {
      if (!mayEnd) throw new ContextNeeded();
      if (call.state === 'ringing') await this.recorder.cancel(manager, context, now);
      else await this.recorder.end(manager, context, 'hangup', now);
      return;
    }
    if (call.state !== 'ongoing' || call.emptySince !== null || context.participants.some((p) => p.inRoom)) return;
    call.emptySince = now;
    await this.calls.updateCall(manager, call.id, { emptySince: now, updatedAt: now });
  }

  /** One pass of the timers (every second on every instance; each end happens once under the call's lock). */
  runTimers(): Promise<void> {
    this.running ??= this.sweep().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async sweep(): Promise<void> {
    // Room events stored but not applied (the instance that stored them stopped, or applying
    // them failed) first: the timers below act on the state they leave.
    try {
      await this.feed.settle();
      await this.feed.applyPending();
    } catch (error) {
      this.failed('room events not yet applied could not be read', null, error);
    }
    const now = this.clock.now();
    await this.each(
      'ring timeout',
      this.backoff.ringing,
      now,
      (skip) => this.calls.dueRinging(now, TIMER_BATCH, skip),
      (id) => this.endIf(id, 'no_answer', (c) => c.state === 'ringing' && (c.ringDeadline ?? Infinity) <= now),
    );
    await this.each(
      'empty room',
      this.backoff.empty,
      now,
      (skip) => this.calls.dueEmpty(now - EMPTY_ROOM_MS, TIMER_BATCH, skip),
      (id) =>
        this.endIf(
          id,
          'interrupted',
          (c) => c.state === 'ongoing' && c.emptySince !== null && c.emptySince <= now - EMPTY_ROOM_MS,
        ),
    );
    await this.each(
      'room release',
      this.backoff.release,
      now,
      (skip) => this.calls.roomsHeldAfterEnd(now - ROOM_HOLD_MS, TIMER_BATCH, skip),
      (id) => this.tx.run((manager) => this.calls.updateCall(manager, id, { liveRoomId: null, updatedAt: now })),
    );
  }

  /**
   * One timer's due calls, each on its own: a call that fails (a bad row, a deadlock) is
   * logged with its call ID, counted, and tried again after a backoff (1 s doubling to 60 s)
   * during which it is left out of the batch, and the others go on.
   */
  private async each(
    timer: string,
    backoff: FailureBackoff,
    now: number,
    due: (skip: readonly string[]) => Promise<DueCall[]>,
    work: (rowId: string) => Promise<void>,
  ): Promise<void> {
    let calls: DueCall[];
    try {
      calls = await due(backoff.waiting(now));
    } catch (error) {
      this.failed(`call timers (${timer}) could not read the due calls`, null, error);
      return;
    }
    for (const call of calls) {
      try {
        await work(call.id);
        backoff.succeeded(call.id);
      } catch (error) {
        this.failed(`call ${call.callId}: ${timer} failed`, backoff.failed(call.id, now) - now, error);
      }
    }
  }

  private failed(what: string, retryInMs: number | null, error: unknown): void {
    this.metrics.backgroundItemFailures.inc({ pass: 'call_timers' });
    const retry = retryInMs === null ? 'retried next second' : `retried in ${Math.round(retryInMs / 1000)} s`;
    this.logger.warn(`${what}, ${retry}: ${(error as Error).message}`);
  }

  private async endIf(rowId: string, reason: CallEndReason, due: (call: CallEntity) => boolean): Promise<void> {
    const call = await this.calls.findById(rowId);
    if (!call || !due(call)) return;
    const context = await this.recorder.context(call);
    await this.tx.run(async (manager) => {
      const locked = await this.calls.lock(manager, rowId);
      if (!locked || !due(locked)) return;
      context.call = locked;
      context.participants = await this.calls.participantsOf(locked.id, manager);
      await this.recorder.end(manager, context, reason, this.clock.now());
    });
  }
}

/**
 * The time an event is ordered by. EventMsTs is used when present (spec 4.5); a stamp known only
 * to the second (EventTs) is taken as the last millisecond of that second, so it comes after the
 * events stamped to the millisecond within its second (a close in the same second as the
 * participant events before it applies), while one from an earlier second is still older.
 */
export function orderStamp(event: Pick<RoomEvent, 'eventMs' | 'secondsOnly'>): number {
  return event.secondsOnly ? event.eventMs + LAST_MS_OF_SECOND : event.eventMs;
}
