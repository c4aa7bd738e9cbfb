import type { Socket } from 'socket.io-client';
import type { ClientAck } from '../../../src/contract/index.js';
import { AuthSession } from './auth-session.js';
import { reconnectDelay } from './backoff.js';
import { AUTH_CODES, ErrorCode, ImError } from './errors.js';
import type { ConnectionDevice } from './device.js';
import { SocketFactory } from './environment.js';
import { EventDedup } from './event-dedup.js';
import { ReadyInfo, ServerEvent } from './events.js';

export interface RealtimeHandlers {
  ready(info: ReadyInfo): void;
  event(event: ServerEvent): void;
  disconnected(reason: string): void;
  /** `session.expired` / `session.revoked` as the service sent it (the link acts on it itself). */
  session(event: ServerEvent): void;
  /** The session cannot go on (user or SDK disabled, credential not renewable). */
  fatal(error: ImError): void;
}

/**
 * The socket.io connection of one login. It reconnects by itself with jittered backoff (0.25 s
 * growing to 25 s; at once when the network comes back), resumes from the last position it
 * processed, renews the credential on 1101–1103, and hands each event on once.
 */
export class RealtimeLink {
  private socket: Socket | null = null;
  private position: string | null = null;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private running = false;
  private generation = -1;

  constructor(
    private readonly baseUrl: string,
    private readonly path: string,
    private readonly session: AuthSession,
    private readonly dedup: EventDedup,
    private readonly handlers: RealtimeHandlers,
    private readonly connectSocket: SocketFactory,
    /** Named at every connect (`auth.device`), for the operators' view of the user's devices. */
    private readonly device?: ConnectionDevice,
  ) {}

  get connected(): boolean {
    return this.socket?.connected === true;
  }

  start(): void {
    this.stop();
    this.running = true;
    this.generation = this.session.generation;
    this.position = null;
    void this.connect();
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.socket?.removeAllListeners();
    this.socket?.disconnect();
    this.socket = null;
  }

  /** The network came back: try now instead of waiting out the backoff. */
  retryNow(): void {
    if (!this.running || this.socket) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.attempt = 0;
    void this.connect();
  }

  /** Sends a client event on the live connection and answers its acknowledgement. */
  send(name: 'conversation.typing', payload: { conversation_id: string }): Promise<ClientAck> {
    const socket = this.socket;
    if (!socket?.connected)
      return Promise.reject(new ImError('network', ErrorCode.NETWORK, 'no live connection to the service'));
    // A connection that drops before answering must not leave the promise pending forever.
    return new Promise((resolve, reject) =>
      socket.timeout(10_000).emit(name, payload, (error: Error | null, ack: ClientAck) => {
        if (error) reject(new ImError('network', ErrorCode.NETWORK, `no acknowledgement of ${name}`));
        else resolve(ack);
      }),
    );
  }

  /** Same identity, new credential: the live connection takes it without reconnecting (spec 4.7 rule 7). */
  renewed(token: string): void {
    this.socket?.emit('auth.renew', { token });
  }

  private current(): boolean {
    return this.running && this.generation === this.session.generation;
  }

  private async connect(): Promise<void> {
    if (!this.current() || this.socket) return;
    let token: string;
    try {
      token = await this.session.token();
    } catch (error) {
      this.fail(error);
      return;
    }
    if (!this.current() || this.socket) return;
    const socket = this.connectSocket(this.baseUrl, {
      path: this.path,
      auth: {
        token,
        ...(this.position ? { position: this.position } : {}),
        ...(this.device ? { device: this.device } : {}),
      },
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
    });
    this.socket = socket;
    socket.onAny((name: string, payload: unknown) => {
      if (this.socket === socket && this.current()) this.receive(name, payload, token);
    });
    socket.on('connect_error', (error: Error & { data?: { code?: number; msg?: string } }) => {
      if (this.socket !== socket) return;
      this.drop(socket);
      void this.refused(error.data?.code ?? ErrorCode.NETWORK, error.data?.msg ?? error.message, token);
    });
    socket.on('disconnect', (reason: string) => {
      if (this.socket !== socket) return;
      this.drop(socket);
      if (!this.current()) return;
      this.handlers.disconnected(reason);
      this.schedule();
    });
  }

  private receive(name: string, payload: unknown, token: string): void {
    if (name === 'connection.ready') {
      const ready = payload as ReadyInfo;
      this.attempt = 0;
      this.position = ready.position;
      this.handlers.ready(ready);
      return;
    }
    const event = payload as ServerEvent;
    if (!event || typeof event.event_id !== 'string') return;
    if (event.position !== null) this.position = event.position;
    if (name === 'session.expired' || name === 'session.revoked') {
      this.handlers.session(event);
      const code = Number((event.data as { code?: unknown }).code);
      // The server disconnects next; an authorization end renews before the reconnect.
      if (AUTH_CODES.includes(code)) void this.session.renewAfterRefusal(token).catch((error) => this.fail(error));
      else this.fail(new ImError('disabled', code, `the session was ended by the service (${code})`));
      return;
    }
    if (this.dedup.firstTime(event.event_id)) this.handlers.event(event);
  }

  private async refused(code: number, message: string, token: string): Promise<void> {
    if (!this.current()) return;
    if (AUTH_CODES.includes(code)) {
      try {
        await this.session.renewAfterRefusal(token);
      } catch (error) {
        this.fail(error);
        return;
      }
      this.schedule(0);
      return;
    }
    if (code === ErrorCode.SDK_DISABLED || code === ErrorCode.USER_DISABLED) {
      this.fail(new ImError('disabled', code, message));
      return;
    }
    this.handlers.disconnected(message);
    this.schedule();
  }

  private fail(error: unknown): void {
    if (!this.current()) return;
    const imError = error instanceof ImError ? error : new ImError('auth', 0, String(error));
    if (imError.kind === 'stale') return;
    if (imError.kind === 'network') {
      this.schedule();
      return;
    }
    this.stop();
    this.handlers.fatal(imError);
  }

  private drop(socket: Socket): void {
    socket.removeAllListeners();
    socket.disconnect();
    if (this.socket === socket) this.socket = null;
  }

  private schedule(delay = reconnectDelay(this.attempt++)): void {
    if (!this.current()) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.connect();
    }, delay);
  }
}
