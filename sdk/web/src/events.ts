import type { ConnectionReady, EventEnvelope } from '../../../src/contract/index.js';

/**
 * The envelope of every real-time event (README "Real-time connection"). `position` is opaque
 * and only grows within one user's stream; null for ephemeral events (typing, presence). The
 * contract's `ServerEventEnvelope` is the same envelope with `data` typed by `type`.
 */
export type ServerEvent<D = Record<string, unknown>> = EventEnvelope<string, D>;

/** `connection.ready`: a connection (new or resumed) is ready. */
export type ReadyInfo = ConnectionReady;

/** Why the SDK asks for recovery (spec 4.7). */
export type RecoveryReason = 'login' | 'foreground' | 'online' | 'connection.ready' | 'refresh' | 'gap';

export interface ClientEventMap {
  /** Every server event, once per event_id, in arrival order. */
  event: ServerEvent;
  /** A connection (new or resumed) is ready; recovery follows. */
  ready: ReadyInfo;
  /** The connection dropped; the SDK reconnects with backoff, and the readable cache stays. */
  disconnected: { reason: string };
  /** Run `sync` and `messages` now (merged: one in flight, at most one trailing). */
  recover: { reasons: RecoveryReason[] };
  /** The auth provider answered another user during renewal; the session stopped. */
  'identity.changed': { previous_user_id: string; next_user_id: string };
  /** The session ended without logout: the user or the SDK was disabled, or renewal failed. */
  'session.ended': { code: number; kind: string; message: string };
}

type Listener<T> = (payload: T) => void;

/** A typed emitter; a listener that throws never stops the others. */
export class Emitter<M extends object> {
  private readonly listeners = new Map<keyof M, Set<Listener<never>>>();

  on<K extends keyof M>(type: K, listener: Listener<M[K]>): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(listener as Listener<never>);
    return () => this.off(type, listener);
  }

  off<K extends keyof M>(type: K, listener: Listener<M[K]>): void {
    this.listeners.get(type)?.delete(listener as Listener<never>);
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
  }
}
