// A real-time client as the SDK behaves (spec 4.7 and 6): it remembers the `position` of the
// last event it processed (or of the last connection.ready), and every new connection, to
// whichever instance, passes it as auth.position. It records what arrived on which connection,
// so a test can tell a missing event, a duplicate on one connection (the server promises each
// event once per connection) and a duplicate across connections (a resume that replayed what
// the client had already processed).
import { Socket, io } from 'socket.io-client';
import { sleep } from './processes';

/** One durable event the client processed (the first copy of its event_id). */
export interface Processed {
  eventId: string;
  type: string;
  position: string;
  data: Record<string, unknown>;
  connection: number;
  /** Arrived after the connection's connection.ready (live), not in its replay. */
  live: boolean;
  at: number;
}

export interface ReadyRecord {
  connection: number;
  url: string;
  /** Whether this connection passed a resume point. */
  passedPosition: boolean;
  resumed: boolean;
  replayed: number;
  /** Durable events that arrived on this connection before its connection.ready. */
  before: number;
}

export interface ResumingClientOptions {
  transports?: string[];
  /** On a drop the client did not ask for, the URL to reconnect to (e.g. a surviving instance); null: stay down. */
  onDrop?: () => string | null;
  /** How long to stay down after such a drop before reconnecting (socket.io-client's own default is about 1 s). */
  reconnectDelayMs?: number;
}

export class ResumingClient {
  /** The resume point: position of the last processed event or connection.ready. */
  position: string | null = null;
  readonly processed: Processed[] = [];
  readonly readies: ReadyRecord[] = [];
  /** The same event_id twice on one connection. */
  readonly socketDuplicates: Array<{ eventId: string; connection: number }> = [];
  /** An event_id already processed on an earlier connection. */
  readonly resumeDuplicates: Array<{ eventId: string; connection: number; first: number }> = [];
  /** Drops the client did not ask for, with socket.io's reason. */
  readonly drops: Array<{ connection: number; reason: string; at: number }> = [];
  readonly connectErrors: string[] = [];
  connections = 0;
  private readonly firstSeenOn = new Map<string, number>();
  private socket: Socket | null = null;
  private closing = false;

  constructor(
    readonly name: string,
    private readonly token: string,
    private readonly options: ResumingClientOptions = {},
  ) {}

  get connected(): boolean {
    return this.socket !== null;
  }

  /** The event_ids processed, in processing order. */
  eventIds(type?: string): string[] {
    return this.processed.filter((p) => !type || p.type === type).map((p) => p.eventId);
  }

  has(eventId: string): boolean {
    return this.firstSeenOn.has(eventId);
  }

  /** Opens a connection to `url` with the current resume point and waits for its connection.ready. */
  connect(url: string, timeoutMs = 10_000): Promise<void> {
    if (this.socket) throw new Error(`${this.name} is already connected`);
    this.closing = false;
    const connection = (this.connections += 1);
    const passedPosition = this.position !== null;
    const auth: Record<string, unknown> = { token: this.token };
    if (this.position !== null) auth.position = this.position;
    const socket = io(url, {
      auth,
      transports: this.options.transports ?? ['websocket'],
      reconnection: false,
      forceNew: true,
      timeout: timeoutMs,
    });
    this.socket = socket;
    const onThis = new Set<string>();
    let before = 0;
    let ready = false;
    let failed = false;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => fail(new Error(`${this.name}: no connection.ready from ${url} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const fail = (error: Error): void => {
        if (failed) return;
        failed = true;
        clearTimeout(timer);
        if (this.socket === socket) this.socket = null;
        socket.removeAllListeners();
        socket.offAny();
        socket.disconnect();
        this.connectErrors.push(error.message);
        reject(error);
      };
      socket.once('connect_error', (error: Error & { data?: unknown }) =>
        fail(
          new Error(`${this.name}: connect_error from ${url}: ${error.message} ${JSON.stringify(error.data ?? null)}`),
        ),
      );
      socket.onAny(
        (
          name: string,
          payload: {
            event_id?: string;
            type?: string;
            position?: string | null;
            data?: Record<string, unknown>;
          } & Record<string, unknown>,
        ) => {
          if (name === 'connection.ready') {
            ready = true;
            clearTimeout(timer);
            this.readies.push({
              connection,
              url,
              passedPosition,
              resumed: payload.resumed === true,
              replayed: Number(payload.replayed),
              before,
            });
            this.position = String(payload.position);
            resolve();
            return;
          }
          if (payload?.position === null || payload?.position === undefined || !payload.event_id) return;
          if (!ready) before += 1;
          const eventId = payload.event_id;
          if (onThis.has(eventId)) {
            this.socketDuplicates.push({ eventId, connection });
            return;
          }
          onThis.add(eventId);
          const first = this.firstSeenOn.get(eventId);
          if (first !== undefined) {
            this.resumeDuplicates.push({ eventId, connection, first });
            return;
          }
          this.firstSeenOn.set(eventId, connection);
          this.processed.push({
            eventId,
            type: String(payload.type),
            position: payload.position,
            data: payload.data ?? {},
            connection,
            live: ready,
            at: Date.now(),
          });
          this.position = payload.position;
        },
      );
      socket.on('disconnect', (reason: string) => {
        if (this.socket === socket) this.socket = null;
        socket.offAny();
        if (!ready)
          return fail(new Error(`${this.name}: disconnected (${reason}) from ${url} before connection.ready`));
        if (this.closing || reason === 'io client disconnect') return;
        this.drops.push({ connection, reason, at: Date.now() });
        void this.reconnectAfterDrop();
      });
    });
  }

  /**
   * Ends the connection from the client side: `graceful` tells the server, `abrupt` closes the
   * transport under socket.io (as a network loss does on the client's side).
   */
  disconnect(mode: 'graceful' | 'abrupt' = 'graceful'): void {
    const socket = this.socket;
    if (!socket) return;
    this.closing = true;
    this.socket = null;
    // Whatever is still in the socket's buffers is not processed: the next resume brings it.
    socket.offAny();
    if (mode === 'abrupt') socket.io.engine?.close();
    socket.disconnect();
  }

  /** Connects to `pick()`'s URL, trying again (another pick) until it works or `timeoutMs` passes. */
  async connectSomewhere(pick: () => string | null, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const url = pick();
      if (url) {
        try {
          await this.connect(url, Math.max(1000, Math.min(10_000, deadline - Date.now())));
          return;
        } catch (error) {
          if (Date.now() > deadline) throw error;
        }
      } else if (Date.now() > deadline) {
        throw new Error(`${this.name}: no instance to connect to`);
      }
      await sleep(200);
    }
  }

  private async reconnectAfterDrop(): Promise<void> {
    const pick = this.options.onDrop;
    if (!pick) return;
    await sleep(this.options.reconnectDelayMs ?? 50);
    if (this.socket || this.closing) return;
    await this.connectSomewhere(pick).catch(() => undefined);
  }

  close(): void {
    this.disconnect('graceful');
  }
}
