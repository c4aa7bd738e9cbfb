import type {
  ConnectionReady,
  EphemeralEventMap,
  EventEnvelope,
  ServerEventEnvelope,
} from '../../../src/contract/index.js';
import type { MessageReply, PushProviderId } from '../../../src/contract/index.js';
import type { LocalMessage } from './api/messages-api.js';
import type { ErrorKind } from './errors.js';

/**
 * The envelope of every real-time event (README "Real-time connection"). `position` is opaque
 * and only grows within one user's stream; null for ephemeral events (typing, presence). Listen
 * by type (`client.on('message.new', …)`) to get `data` typed; this loose form is what the
 * catch-all `'event'` channel and local tools see.
 */
export type ServerEvent<D = Record<string, unknown>> = EventEnvelope<string, D>;

/** Every event type the service sends in an envelope (durable and ephemeral). */
export type ServerEventType = ServerEventEnvelope['type'];

/** The envelope of one event type, with its `data` typed by the service's contract. */
export type ServerEventOf<K extends ServerEventType> = Extract<ServerEventEnvelope, { type: K }>;

/** `connection.ready`: a connection (new or resumed) is ready. */
export type ReadyInfo = ConnectionReady;

/** Why the SDK asks for recovery (spec 4.7). */
export type RecoveryReason = 'login' | 'foreground' | 'online' | 'connection.ready' | 'refresh' | 'gap';

/** Events the SDK itself raises about the connection and the session. */
export interface SdkEventMap {
  /** Every server event, once per event_id, in arrival order (typed listeners get the same objects). */
  event: ServerEventEnvelope;
  /** A connection (new or resumed) is ready; recovery follows. */
  'connection.ready': ReadyInfo;
  /**
   * The connection dropped (once per outage, not per failed attempt); the SDK reconnects with
   * backoff, and the readable cache stays. `connection.ready` tells the end of the outage.
   */
  'connection.lost': { reason: string };
  /** Run `sync` and `messages` now (merged: one in flight, at most one trailing). */
  recover: { reasons: RecoveryReason[] };
  /** The auth provider answered another user during renewal; the session stopped. */
  'identity.changed': { previous_user_id: string; next_user_id: string };
  /**
   * The session ended without logout: the user or the SDK was disabled, or renewal failed for
   * good. Follows the service's `session.revoked` / `session.expired` where one caused it.
   */
  'session.ended': { code: number; kind: ErrorKind; message: string };
  /**
   * A push registration the SDK sent again by itself (after a renewed credential, at
   * `connection.ready`) failed. A refusal (kind `rejected`) is not tried again: register anew;
   * a lost network or a busy service is tried at the next `connection.ready`.
   */
  'push.failed': { provider: PushProviderId; code: number; kind: ErrorKind; message: string };
  /**
   * A message this client is sending (the local echo), or one being retried; again for the same
   * `client_message_id` when an image or file's upload is done and the message itself goes out.
   */
  'message.pending': LocalMessage;
  /** An image or file send's upload moved on: its `progress`. */
  'message.progress': LocalMessage;
  /** The app discarded a failed message (`messages.discard`). */
  'message.discarded': LocalMessage;
  /** A send this client made was refused or could not reach the service; `messages.retry` sends it again. */
  'message.failed': LocalMessage;
  /**
   * A local message was stored: `message` replaces `local`. Its `message.new` follows, or came
   * just before when the send's reply was lost and the real-time echo settled it.
   */
  'message.sent': { local: LocalMessage; message: MessageReply };
}

/**
 * Everything `client.on` can listen to: each server event type with its contract payload
 * (`message.new`, `conversation.peer_read`, `conversation.typing`, `presence.changed`,
 * `call.*`, `group.*`, `friend.*`, `session.expired`, `session.revoked`, ...) and the SDK's own
 * events ({@link SdkEventMap}).
 */
export type ClientEventMap = { [K in ServerEventType]: ServerEventOf<K> } & SdkEventMap;

/** The payload a `session.expired` or `session.revoked` event carries. */
export type SessionEventData = EphemeralEventMap['session.revoked'];

type Listener<T> = (payload: T) => void;

/** Options of `client.events(type, options)`. */
export interface StreamOptions {
  /** Ends the iteration (the loop's `for await` returns). */
  signal?: AbortSignal;
}

/** A typed emitter; a listener that throws never stops the others. */
export class Emitter<M extends object> {
  private readonly listeners = new Map<keyof M, Set<Listener<never>>>();
  /** `once` listeners by what the app passed, so `off(type, listener)` removes them too. */
  private readonly onceWrappers = new Map<keyof M, Map<Listener<never>, Listener<never>>>();

  /** Adds a listener; returns the function that removes it. */
  on<K extends keyof M>(type: K, listener: Listener<M[K]>): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(listener as Listener<never>);
    return () => this.off(type, listener);
  }

  /** Adds a listener called for the next event of `type` only. */
  once<K extends keyof M>(type: K, listener: Listener<M[K]>): () => void {
    let wrappers = this.onceWrappers.get(type);
    if (!wrappers) this.onceWrappers.set(type, (wrappers = new Map()));
    const registry = wrappers;
    const wrapper: Listener<M[K]> = (payload) => {
      this.off(type, listener);
      listener(payload);
    };
    registry.set(listener as Listener<never>, wrapper as Listener<never>);
    this.on(type, wrapper);
    return () => this.off(type, listener);
  }

  /** Removes a listener added with `on` or `once`. */
  off<K extends keyof M>(type: K, listener: Listener<M[K]>): void {
    const wrapper = this.onceWrappers.get(type)?.get(listener as Listener<never>);
    if (wrapper) {
      this.onceWrappers.get(type)!.delete(listener as Listener<never>);
      this.listeners.get(type)?.delete(wrapper);
    }
    this.listeners.get(type)?.delete(listener as Listener<never>);
  }

  /**
   * The events of `type` as an async iterator, from now on. Events that arrive while the loop's
   * body runs are queued, not lost. Ends when `signal` aborts or the loop breaks.
   */
  stream<K extends keyof M>(type: K, options: StreamOptions = {}): AsyncIterableIterator<M[K]> {
    const queue: M[K][] = [];
    let wake: (() => void) | null = null;
    let done = options.signal?.aborted === true;
    const finish = () => {
      done = true;
      off();
      options.signal?.removeEventListener('abort', finish);
      wake?.();
    };
    const off = this.on(type, (payload) => {
      queue.push(payload);
      wake?.();
    });
    options.signal?.addEventListener('abort', finish);
    if (done) finish();
    const iterator: AsyncIterableIterator<M[K]> = {
      [Symbol.asyncIterator]: () => iterator,
      async next() {
        while (queue.length === 0 && !done) await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
        if (queue.length > 0) return { value: queue.shift() as M[K], done: false };
        return { value: undefined, done: true };
      },
      async return() {
        finish();
        return { value: undefined, done: true };
      },
    };
    return iterator;
  }

  /** Whether anyone listens to `type` (the SDK skips work nobody would see). */
  has<K extends keyof M>(type: K): boolean {
    return (this.listeners.get(type)?.size ?? 0) > 0;
  }

  emit<K extends keyof M>(type: K, payload: M[K]): void {
    for (const listener of [...(this.listeners.get(type) ?? [])]) {
      try {
        (listener as Listener<M[K]>)(payload);
      } catch (error) {
        // An app's listener failing must not break delivery to the others.
        setTimeout(() => {
          throw error;
        });
      }
    }
  }

  clear(): void {
    this.listeners.clear();
    this.onceWrappers.clear();
  }
}
