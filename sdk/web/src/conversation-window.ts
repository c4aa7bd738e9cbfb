import type { MessageReply, MessageWindowReply, ReadReply as ContractReadReply } from '../../../src/contract/index.js';
import { Coalescer } from './coalescer.js';
import { ImError } from './errors.js';
import { ServerEvent } from './events.js';

/** A message as the service returns it (tombstones keep `mid` and `conversation_seq`). */
export type ImMessage = MessageReply;

/** The reply of `GET /app/sdk/messages`. */
export type WindowReply = MessageWindowReply;

/** The reply of `POST /app/sdk/messages/read`: the read position and the exact unread after it. */
export type ReadReply = ContractReadReply;

export interface WindowTransport {
  messages(query: Record<string, string>): Promise<WindowReply>;
  read(conversationId: string, readSeq: string): Promise<ReadReply>;
}

export interface WindowState {
  messages: ImMessage[];
  hasMoreBefore: boolean;
  /** Newer messages exist beyond the window (after locating an older message). */
  hasMoreAfter: boolean;
  /** True while the user browses history: new messages are announced, not scrolled to, and nothing is read. */
  browsingHistory: boolean;
  /** The highest sequence up to which the window has no hole (tombstones count). */
  continuousTo: bigint;
  readSeq: bigint;
  unread: number;
}

export type CalibrationTrio = { known_last_seq: string; known_updated_at: string; known_deletion_revision: string };

/** Where a window keeps its readable copy across reloads (see StateStore); bound to one login. */
export interface WindowCache {
  load(): Promise<unknown>;
  save(snapshot: WindowSnapshot): void;
}

/** The latest messages with the trio of the read they came from: calibrating from it can answer `unchanged`. */
export interface WindowSnapshot {
  messages: ImMessage[];
  trio: CalibrationTrio | null;
  hasMoreBefore: boolean;
  readSeq: string;
  unread: number;
}

const CACHED_MESSAGES = 50;
const MESSAGE_EVENTS = ['message.new', 'message.recalled', 'message.deleted'];

/**
 * The visible conversation's window, kept exactly as spec 4.7 says:
 * - the calibration trio always comes from one tail read, and real-time merges never touch it;
 * - `unchanged` keeps the messages; `reset` replaces them and re-applies what arrived meanwhile;
 * - a higher sequence after a hole triggers calibration, and no read goes past the hole;
 * - `read_seq` advances only to the continuous boundary the user has seen, not while browsing
 *   history, and a failed read keeps its checkpoint for the next chance;
 * - an older copy of a message never overwrites a newer one (`updated_at`).
 */
export class ConversationWindow {
  private readonly bySeq = new Map<bigint, ImMessage>();
  private trio: CalibrationTrio | null = null;
  private hasMoreBefore = false;
  private hasMoreAfter = false;
  private browsing = false;
  private readSeq = 0n;
  private unread = 0;
  /** Events received while a tail read is in flight: re-applied over a reset. */
  private duringRead: ImMessage[] | null = null;
  private seenTo = 0n;
  private reading: Promise<void> | null = null;
  private closed = false;
  private readonly calibrator: Coalescer<string>;

  constructor(
    readonly conversationId: string,
    private readonly transport: WindowTransport,
    private readonly onChange: (state: WindowState) => void = () => undefined,
    private readonly cache: WindowCache | null = null,
  ) {
    this.calibrator = new Coalescer<string>(() => this.calibrateOnce());
  }

  get state(): WindowState {
    const messages = [...this.bySeq.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, m]) => m);
    return {
      messages,
      hasMoreBefore: this.hasMoreBefore,
      hasMoreAfter: this.hasMoreAfter,
      browsingHistory: this.browsing,
      continuousTo: this.continuousTo(),
      readSeq: this.readSeq,
      unread: this.unread,
    };
  }

  close(): void {
    this.closed = true;
  }

  /** Shows the cached copy at once (before any network), when the window is still empty. */
  async restore(): Promise<void> {
    const snapshot = (await this.cache?.load().catch(() => undefined)) as WindowSnapshot | undefined;
    if (!snapshot || this.closed || this.bySeq.size > 0 || !Array.isArray(snapshot.messages)) return;
    for (const message of snapshot.messages) this.upsert(message);
    this.trio ??= snapshot.trio;
    this.hasMoreBefore = snapshot.hasMoreBefore;
    this.applyReadState(BigInt(snapshot.readSeq), snapshot.unread);
    this.changed();
  }

  /** Tail calibration (4.7 rule 2); adjacent calls merge into one read plus one trailing. */
  calibrate(reason = 'calibrate'): Promise<void> {
    return this.calibrator.trigger(reason);
  }

  private async calibrateOnce(): Promise<void> {
    const trio = this.trio ?? { known_last_seq: '0', known_updated_at: '0', known_deletion_revision: '0' };
    this.duringRead = [];
    let reply: WindowReply;
    try {
      reply = await this.transport.messages({ conversation_id: this.conversationId, ...trio });
    } finally {
      if (this.closed) this.duringRead = null;
    }
    if (this.closed) return;
    const meanwhile = this.duringRead ?? [];
    this.duringRead = null;
    if (reply.outcome === 'reset') {
      this.bySeq.clear();
      for (const message of reply.messages) this.bySeq.set(BigInt(message.conversation_seq), message);
      this.hasMoreBefore = reply.has_more_before === true;
      this.hasMoreAfter = false;
      for (const message of meanwhile) this.upsert(message);
    }
    this.trio = {
      known_last_seq: reply.last_seq,
      known_updated_at: String(reply.updated_at),
      known_deletion_revision: reply.deletion_revision,
    };
    this.applyReadState(BigInt(reply.read_seq), reply.unread);
    this.changed();
    // A failed read keeps its checkpoint; the calibration itself succeeded.
    await this.flushRead().catch(() => undefined);
  }

  /** Older history (4.7 rule 3): never mixed with the trio. */
  async loadOlder(): Promise<void> {
    const first = this.firstSeq();
    if (first === null || !this.hasMoreBefore) return;
    const reply = await this.transport.messages({ conversation_id: this.conversationId, before_seq: String(first) });
    if (this.closed) return;
    for (const message of reply.messages) this.upsert(message);
    this.hasMoreBefore = reply.has_more_before === true;
    this.changed();
  }

  /** Newer messages after a located window, by `after_seq` (4.7 rule 3). */
  async loadNewer(): Promise<void> {
    const last = this.lastSeq();
    if (last === null || !this.hasMoreAfter) return;
    const reply = await this.transport.messages({ conversation_id: this.conversationId, after_seq: String(last) });
    if (this.closed) return;
    for (const message of reply.messages) this.upsert(message);
    this.hasMoreAfter = reply.has_more_after === true;
    this.changed();
    // Back at the latest message: a tail read gives the window its trio again.
    if (!this.hasMoreAfter) await this.calibrate('tail');
  }

  /**
   * Shows the messages around `mid` (a search result), by `around_mid`. The window is no longer
   * the tail, so its trio is dropped: the next calibration reads the tail afresh (4.7 rule 3).
   */
  async locate(mid: string): Promise<void> {
    const reply = await this.transport.messages({ conversation_id: this.conversationId, around_mid: mid });
    if (this.closed) return;
    this.bySeq.clear();
    for (const message of reply.messages) this.upsert(message);
    this.trio = null;
    this.hasMoreBefore = reply.has_more_before === true;
    this.hasMoreAfter = reply.has_more_after === true;
    this.browsing = true;
    this.changed();
  }

  /** The user scrolled away from the latest messages (true) or back to them (false). */
  setBrowsingHistory(browsing: boolean): void {
    this.browsing = browsing;
    this.changed();
    if (!browsing) void this.flushRead().catch(() => undefined);
  }

  /** The latest sequence the user has actually seen on screen. */
  async markSeen(seq: bigint): Promise<void> {
    if (seq > this.seenTo) this.seenTo = seq;
    await this.flushRead();
  }

  /** A real-time event; only message events of this conversation are taken. */
  onEvent(event: ServerEvent): void {
    if (this.closed || !MESSAGE_EVENTS.includes(event.type)) return;
    const data = event.data as { conversation_id?: string; message?: ImMessage };
    const message = data.message;
    const conversationId = data.conversation_id ?? message?.conversation_id;
    if (!message || conversationId !== this.conversationId) return;
    const normalized = { ...message, conversation_id: this.conversationId };
    this.duringRead?.push(normalized);
    const seq = BigInt(normalized.conversation_seq);
    const last = this.lastSeq();
    // A located window is not the tail: newer messages arrive with "load newer", not live.
    if (this.hasMoreAfter && last !== null && seq > last) return;
    this.upsert(normalized);
    this.changed();
    // 4.7 rule 4: a hole before this message: calibrate first.
    if (last !== null && seq > last + 1n) void this.calibrate('gap').catch(() => undefined);
  }

  /** A read on another device of this user (`conversation.read`). */
  applyReadState(readSeq: bigint, unread: number): void {
    if (readSeq >= this.readSeq) {
      this.readSeq = readSeq;
      this.unread = unread;
    }
  }

  private upsert(message: ImMessage): void {
    const seq = BigInt(message.conversation_seq);
    const current = this.bySeq.get(seq);
    // 4.7 rule 6: an older read never overwrites a newer message.
    if (current && current.updated_at > message.updated_at) return;
    this.bySeq.set(seq, message);
  }

  /**
   * Rule 5: to the seen, continuous boundary; not while browsing history; retried after a failure.
   * One read at a time: a caller arriving meanwhile waits for it, then reads on if it saw further,
   * so that `markSeen` resolves once the server has what it marked.
   */
  private async flushRead(): Promise<void> {
    while (this.reading) await this.reading.catch(() => undefined);
    if (this.browsing || this.closed) return;
    const target = this.seenTo < this.continuousTo() ? this.seenTo : this.continuousTo();
    if (target <= this.readSeq) return;
    this.reading = this.readTo(target);
    try {
      await this.reading;
    } finally {
      this.reading = null;
    }
  }

  private async readTo(target: bigint): Promise<void> {
    try {
      const reply = await this.transport.read(this.conversationId, String(target));
      // The reply's unread is exact after the read; a read already further on (another device) is kept.
      this.applyReadState(BigInt(reply.read_seq), reply.unread);
      this.changed();
    } catch (error) {
      // The checkpoint stays; the next visible message, foreground or reconnect tries again.
      if (!(error instanceof ImError) || error.kind !== 'stale') throw error;
    }
  }

  private continuousTo(): bigint {
    const first = this.firstSeq();
    if (first === null) return this.readSeq;
    let seq = first;
    while (this.bySeq.has(seq + 1n)) seq += 1n;
    return seq;
  }

  private firstSeq(): bigint | null {
    let min: bigint | null = null;
    for (const seq of this.bySeq.keys()) if (min === null || seq < min) min = seq;
    return min;
  }

  private lastSeq(): bigint | null {
    let max: bigint | null = null;
    for (const seq of this.bySeq.keys()) if (max === null || seq > max) max = seq;
    return max;
  }

  private changed(): void {
    if (this.closed) return;
    const state = this.state;
    this.onChange(state);
    this.cache?.save({
      messages: state.messages.slice(-CACHED_MESSAGES),
      trio: this.trio,
      hasMoreBefore: this.hasMoreBefore || state.messages.length > CACHED_MESSAGES,
      readSeq: String(this.readSeq),
      unread: this.unread,
    });
  }
}
