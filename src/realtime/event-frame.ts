import type { DurableEventType } from '../contract/events';
import type { DeliverableEventOf, PrivatePart, SharedPart } from '../outbox/deliverable-event';

/** The fields of a durable event that a frame is built from. */
export interface FrameSource<T extends DurableEventType> {
  eventId: string;
  type: T;
  createdAt: number;
  payload: SharedPart<T>;
}

/**
 * socket.io's text encoding of an EVENT packet on the main namespace (socket.io-parser's
 * encodeAsString): the packet type, then the JSON array of the event name and its arguments.
 * Every socket of the gateway is on the main namespace, and no durable payload holds binary.
 */
const EVENT_PACKET = '2';

/**
 * A durable event encoded once per instance, as the frame that `socket.emit(type, envelope)`
 * would write, with the recipient's `position` left open. The envelope differs per recipient
 * only by that position (an opaque token bound to the user) and, for some types, their private
 * part; the rest (event ID, type, time, and the shared payload, the bulk of it) is serialised
 * here once instead of once per socket.
 *
 * Typed by the event map: a frame of type T takes T's shared part, and each recipient's frame
 * T's private part, so what is written is the envelope of ServerToClientEvents[T] in socket.io's
 * encoding (the unit test compares frames with what socket.io's own encoder writes for the
 * envelope emit would have sent, and decodes them with its parser).
 */
export class DurableEventFrame<T extends DurableEventType> {
  private readonly head: string;
  private readonly tailBeforeData: string;
  private readonly shared: string;
  private common: RecipientFrame | null = null;

  constructor(
    private readonly event: FrameSource<T>,
    readonly position: bigint,
  ) {
    const type = JSON.stringify(event.type);
    // Keys in the order the envelope has always been written: event_id, type, position, created_at, data.
    this.head = `${EVENT_PACKET}[${type},{"event_id":${JSON.stringify(event.eventId)},"type":${type},"position":"`;
    this.tailBeforeData = `","created_at":${JSON.stringify(event.createdAt)},"data":`;
    this.shared = JSON.stringify(event.payload);
  }

  /** The frame of one recipient: the shared part merged with their private part (one frame for all when there is none). */
  for(part: PrivatePart<T> | null): RecipientFrame {
    if (part === null) {
      this.common ??= new RecipientFrame(
        this.head,
        `${this.tailBeforeData}${this.shared}}]`,
        this.position,
        this.event.createdAt,
      );
      return this.common;
    }
    return new RecipientFrame(
      this.head,
      `${this.tailBeforeData}${this.data(part)}}]`,
      this.position,
      this.event.createdAt,
    );
  }

  /** The JSON of `{ ...shared, ...part }`, without parsing the shared part again. */
  private data(part: NonNullable<PrivatePart<T>>): string {
    const own = JSON.stringify(part);
    if (own === '{}') return this.shared;
    const payload: object = this.event.payload;
    // A private key that the shared part also has replaces it in place: left to the object spread.
    for (const key of Object.keys(part))
      if (Object.prototype.hasOwnProperty.call(payload, key)) return JSON.stringify({ ...payload, ...part });
    if (this.shared === '{}') return own;
    return `${this.shared.slice(0, -1)},${own.slice(1)}`;
  }
}

/** What a frame is written to: a socket's engine.io connection (ImSocket has one). */
export interface FrameTarget {
  conn: { readyState: string; write(data: string, options?: { compress?: boolean }): unknown };
}

/** One recipient's frame of a durable event: only their position is left to fill in. */
export class RecipientFrame {
  constructor(
    private readonly head: string,
    private readonly tail: string,
    readonly position: bigint,
    readonly createdAt: number,
  ) {}

  /** The frame with `token` (a PositionTokens token: base 36, base64url and dots, nothing JSON must escape). */
  text(token: string): string {
    return this.head + token + this.tail;
  }

  /**
   * Writes the frame to the socket's connection, as socket.io's own `emit` does after encoding:
   * nothing once the connection is no longer open, and the same `compress` flag.
   */
  send(socket: FrameTarget, token: string): void {
    const conn = socket.conn;
    if (conn.readyState !== 'open') return;
    conn.write(this.text(token), { compress: true });
  }
}

/** One user's copy of a stored event (a replay) as its frame. */
export function replayFrame<T extends DurableEventType>(event: DeliverableEventOf<T>): RecipientFrame {
  return new DurableEventFrame(event, BigInt(event.position)).for(event.private);
}
