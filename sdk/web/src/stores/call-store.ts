import type * as Contract from '../../../../src/contract/index.js';
import type { CallReply } from '../../../../src/contract/index.js';
import type { ClientEventMap } from '../events.js';
import { Observable } from './observable.js';
import type { StoreDeps } from './store-deps.js';

/**
 * Where a call stands for this user and device:
 * - `incoming`: the user is invited and has not answered (a group call may be ongoing without them);
 * - `outgoing`: the user started it and no callee's device has rung yet;
 * - `ringing`: the user started it and a callee's device rang (`call.ringing`);
 * - `ongoing`: answered, and the user is in it;
 * - `ended`: over for this user, see {@link CallView.end_reason}.
 */
export type CallPhase = 'incoming' | 'outgoing' | 'ringing' | 'ongoing' | 'ended';

/**
 * Why a call is over for this user. The service's end reasons (docs/calls.md, "States"):
 * `hangup` (an answered call was hung up), `canceled` (the caller gave up before an answer),
 * `rejected` (declined), `busy`, `no_answer` (it rang out), `ended_by_server` (the provider
 * closed the room), `interrupted` (an ongoing call's room stayed empty); and two that end it
 * for this device or user only while the call goes on: `other_device_accepted` (another
 * device of the user answered) and `left` (the user hung up or was dropped from a group call
 * that goes on; in a group call the user declined, `rejected`).
 */
export type CallEndReason = Contract.CallEndReason | 'left';

/** One call as {@link CallStore} shows it. */
export interface CallView {
  /** The call's ID (UUID), as the calls API takes it. */
  call_id: string;
  /** The user's own ID of the call's conversation. */
  conversation_id: string;
  /** `audio` or `video`. */
  media: string;
  /** `outgoing` when the user started it, `incoming` otherwise. */
  direction: 'incoming' | 'outgoing';
  /** Where the call stands for this user and device. */
  phase: CallPhase;
  /** Set when `phase` is `ended`; null when the service gave no reason the SDK knows. */
  end_reason: CallEndReason | null;
  /** The call as the service last told it (state, participants, times). */
  call: CallReply;
}

/** What {@link CallStore} shows: a new object at every change. */
export interface CallSnapshot {
  /** The calls known since login, newest first; at most {@link ENDED_CALLS_KEPT} ended ones are kept. */
  calls: readonly CallView[];
  /** The newest call this user is placing or in (`outgoing`, `ringing` or `ongoing`), or null. */
  active: CallView | null;
  /** The newest call ringing for this user (`incoming`), or null. */
  incoming: CallView | null;
}

/** Ended calls kept in the snapshot (the newest); older ones are dropped. */
export const ENDED_CALLS_KEPT = 20;

/** What the store knows of one call beyond the service's view of it. */
interface CallRecord {
  call: CallReply;
  /** The device of this user that answered (`call.accepted` naming the user). */
  acceptedDevice: string | null;
  /** A callee's device rang (`call.ringing`). */
  rang: boolean;
}

type CallEvent = ClientEventMap[
  | 'call.invited'
  | 'call.ringing'
  | 'call.accepted'
  | 'call.rejected'
  | 'call.canceled'
  | 'call.participant_joined'
  | 'call.participant_left'
  | 'call.ended'];

const EMPTY: CallSnapshot = Object.freeze({
  calls: Object.freeze([]) as readonly CallView[],
  active: null,
  incoming: null,
});
const STATE_RANK: Record<string, number> = { ringing: 0, ongoing: 1, ended: 2 };
const KNOWN_REASONS: readonly string[] = [
  'hangup',
  'canceled',
  'rejected',
  'busy',
  'no_answer',
  'ended_by_server',
  'interrupted',
  'other_device_accepted',
];

/**
 * Each call's state machine, driven by the `call.*` events (which carry the call as it is after
 * each change) and reconciled with the calls the service says are live at every recovery
 * (login, reconnect, foreground, online), so a call that ended while the connection was down
 * does not ring on.
 *
 * Another device of the user answering (`call.accepted` naming the user and another
 * `device_id`) ends the call for this device as `other_device_accepted`: stop ringing here.
 * An event older than what the store holds (a call's state never goes back: ringing, ongoing,
 * ended) changes nothing, and duplicates change nothing.
 */
export class CallStore extends Observable<CallSnapshot> {
  private records = new Map<string, CallRecord>();
  private generation = 0;

  /**
   * The client makes its stores (`client.conversationList`, `presence`, `typing`, `callState`).
   * @hidden
   */
  constructor(private readonly deps: StoreDeps) {
    super(EMPTY);
    const types = [
      'call.invited',
      'call.ringing',
      'call.accepted',
      'call.rejected',
      'call.canceled',
      'call.participant_joined',
      'call.participant_left',
      'call.ended',
    ] as const;
    for (const type of types) deps.on(type, (event) => this.onEvent(event));
    deps.on('recover', () => void this.reconcile().catch(() => undefined));
  }

  /** One call as the store shows it, or undefined. */
  get(callId: string): CallView | undefined {
    return this.getSnapshot().calls.find((view) => view.call_id === callId);
  }

  /** The newest call this user is placing or in, or null (as in the snapshot). */
  get active(): CallView | null {
    return this.getSnapshot().active;
  }

  /** The newest call ringing for this user, or null (as in the snapshot). */
  get incoming(): CallView | null {
    return this.getSnapshot().incoming;
  }

  /** Drops an ended call from the snapshot (e.g. once its "call ended" screen is closed); a live call stays. */
  dismiss(callId: string): void {
    const view = this.get(callId);
    if (view?.phase !== 'ended') return;
    this.records.delete(callId);
    this.publish();
  }

  /**
   * Asks the service for the user's live calls (`calls.active`) and takes them in; a call held
   * as live that is not among them is read (`calls.get`) for how it ended. The client runs this
   * at every recovery.
   */
  async reconcile(): Promise<void> {
    const generation = this.generation;
    const reply = await this.deps.calls.active();
    if (generation !== this.generation) return;
    const live = new Set(reply.calls.map((call) => call.call_id));
    for (const call of reply.calls) this.take(call);
    const gone = [...this.records.values()].filter(
      (record) => record.call.state !== 'ended' && !live.has(record.call.call_id),
    );
    this.publish();
    // Each on its own: one that cannot be read must not keep the others live.
    await Promise.all(
      gone.map(async (record) => {
        const call = await this.deps.calls.get(record.call.call_id).catch(() => null);
        if (call && generation === this.generation) this.take(call);
      }),
    );
    if (generation === this.generation) this.publish();
  }

  /** Forgets everything (logout, or another user logged in); replies still on their way are dropped. */
  reset(): void {
    this.generation += 1;
    this.records = new Map();
    this.set(EMPTY);
  }

  private onEvent(event: CallEvent): void {
    const data = event.data;
    const record = this.take({ ...data.call, conversation_id: data.conversation_id });
    if (event.type === 'call.ringing') record.rang = true;
    if (event.type === 'call.accepted' && event.data.user_id === this.deps.userId())
      record.acceptedDevice = event.data.device_id;
    this.publish();
  }

  /** The service's view of a call, unless the store holds a later one. */
  private take(call: CallReply): CallRecord {
    const record = this.records.get(call.call_id);
    if (!record) {
      const fresh = { call, acceptedDevice: null, rang: false };
      this.records.set(call.call_id, fresh);
      return fresh;
    }
    const later = (STATE_RANK[call.state] ?? 0) >= (STATE_RANK[record.call.state] ?? 0);
    // The same state again (a duplicate, a reply repeating an event) keeps the object, so the view stays.
    if (later && record.call.state !== 'ended' && JSON.stringify(call) !== JSON.stringify(record.call))
      record.call = call;
    return record;
  }

  private view(record: CallRecord, previous: CallView | undefined): CallView {
    const me = this.deps.userId();
    const device = this.deps.calls.deviceId;
    const { phase, reason } = phaseOf(record, me, device);
    const call = record.call;
    if (previous && previous.call === call && previous.phase === phase && previous.end_reason === reason)
      return previous;
    return {
      call_id: call.call_id,
      conversation_id: call.conversation_id,
      media: call.media,
      direction: call.caller_user_id === me ? 'outgoing' : 'incoming',
      phase,
      end_reason: reason,
      call,
    };
  }

  private publish(): void {
    const current = this.getSnapshot();
    const before = new Map(current.calls.map((view) => [view.call_id, view]));
    let views = [...this.records.values()]
      .map((record) => this.view(record, before.get(record.call.call_id)))
      .sort((a, b) => b.call.started_at - a.call.started_at || (a.call_id < b.call_id ? 1 : -1));
    const ended = views.filter((view) => view.phase === 'ended');
    if (ended.length > ENDED_CALLS_KEPT) {
      const dropped = new Set(ended.slice(ENDED_CALLS_KEPT).map((view) => view.call_id));
      for (const id of dropped) this.records.delete(id);
      views = views.filter((view) => !dropped.has(view.call_id));
    }
    const same = views.length === current.calls.length && views.every((view, i) => view === current.calls[i]);
    if (same) return;
    this.set({
      calls: views,
      active:
        views.find((view) => view.phase === 'outgoing' || view.phase === 'ringing' || view.phase === 'ongoing') ?? null,
      incoming: views.find((view) => view.phase === 'incoming') ?? null,
    });
  }
}

/** A call's phase for `me` on `device`, and why it ended. */
function phaseOf(
  record: CallRecord,
  me: string | null,
  device: string,
): { phase: CallPhase; reason: CallEndReason | null } {
  const { call } = record;
  const ended = (reason: string | null) => ({
    phase: 'ended' as const,
    reason: reason !== null && KNOWN_REASONS.includes(reason) ? (reason as CallEndReason) : null,
  });
  // The user's other device answered: over here, whatever became of the call since.
  if (record.acceptedDevice !== null && record.acceptedDevice !== device)
    return { phase: 'ended', reason: 'other_device_accepted' };
  if (call.state === 'ended') return ended(call.end_reason);
  const mine = call.participants.find((p) => p.user_id === me);
  if (call.caller_user_id === me) {
    if (mine?.state === 'left') return { phase: 'ended', reason: 'left' };
    if (call.state === 'ongoing') return { phase: 'ongoing', reason: null };
    const rang = record.rang || call.participants.some((p) => p.role === 'callee' && p.state === 'ringing');
    return { phase: rang ? 'ringing' : 'outgoing', reason: null };
  }
  switch (mine?.state) {
    case 'declined':
      return { phase: 'ended', reason: 'rejected' };
    case 'left':
      return { phase: 'ended', reason: 'left' };
    case 'joined':
      // This device's answer, or one whose device is unknown (heard of from `calls.active` only).
      return { phase: 'ongoing', reason: null };
    default:
      return { phase: 'incoming', reason: null };
  }
}
