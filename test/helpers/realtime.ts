import type { AddressInfo } from 'node:net';
import { Socket, io } from 'socket.io-client';
import { bearer, type IssuedUser, type TestApp } from './test-app';

/** A server event as received: the envelope of every type but connection.ready. */
export interface Received {
  name: string;
  event_id: string;
  type: string;
  position: string | null;
  created_at: number;
  data: Record<string, unknown>;
}

export interface Ready {
  event_id: string;
  position: string;
  server_time: number;
  resumed: boolean;
  replayed: number;
}

/** Starts the app's HTTP listener (once) and answers its base URL. */
export async function listen(t: TestApp): Promise<string> {
  const server = t.app.getHttpServer() as import('node:http').Server;
  if (!server.listening) await t.app.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * A socket.io client that records every event in arrival order, with helpers to wait for
 * what a test expects. Events before connection.ready (a resume's replay) are recorded too.
 */
export class RtClient {
  readonly events: Received[] = [];
  readonly readies: Ready[] = [];
  /** Every server event's name (and event_id) in arrival order, connection.ready included. */
  readonly arrivals: Array<{ name: string; event_id: string }> = [];
  private waiters: Array<() => void> = [];

  constructor(readonly socket: Socket) {
    socket.onAny((name: string, payload: unknown) => {
      this.arrivals.push({ name, event_id: String((payload as { event_id?: unknown } | null)?.event_id) });
      if (name === 'connection.ready') this.readies.push(payload as Ready);
      else this.events.push({ name, ...(payload as Omit<Received, 'name'>) });
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** The events of one type (or all durable ones, when omitted) received so far. */
  of(type?: string): Received[] {
    return this.events.filter((e) => (type ? e.name === type : e.position !== null));
  }

  /** Polls `check` until it answers; the default deadline is generous (the CI machine is loaded). */
  async waitFor<T>(check: () => T | undefined | null | false, timeoutMs = 30_000, what = 'an event'): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = check();
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`timed out waiting for ${what}; received: ${JSON.stringify(this.events.map((e) => e.name))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 100));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  waitForEvent(eventId: string, timeoutMs = 30_000): Promise<Received> {
    return this.waitFor(() => this.events.find((e) => e.event_id === eventId), timeoutMs, `event ${eventId}`);
  }

  waitForReady(count = 1, timeoutMs = 30_000): Promise<Ready> {
    return this.waitFor(() => this.readies[count - 1], timeoutMs, `connection.ready #${count}`);
  }

  /** Emits with an acknowledgement and answers it. */
  request<T = { code: number; msg: string }>(event: string, ...args: unknown[]): Promise<T> {
    return this.socket.timeout(5000).emitWithAck(event, ...args) as Promise<T>;
  }

  close(): void {
    this.socket.disconnect();
  }
}

export interface ConnectOptions {
  auth?: Record<string, unknown>;
  query?: Record<string, string>;
  transports?: string[];
}

/** Connects and waits for connection.ready; rejects with the connect_error's data on refusal. */
export async function connect(url: string, options: ConnectOptions): Promise<RtClient> {
  const socket = io(url, {
    auth: options.auth,
    query: options.query,
    transports: options.transports ?? ['websocket'],
    reconnection: false,
    forceNew: true,
  });
  const client = new RtClient(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect_error', (error: Error & { data?: unknown }) => {
      socket.disconnect();
      reject(Object.assign(new Error(error.message), { data: error.data }));
    });
    socket.once('connection.ready', () => resolve());
  });
  return client;
}

/** The refusal a handshake gets: connect_error's data. */
export async function refusal(url: string, options: ConnectOptions): Promise<{ code: number; msg: string }> {
  try {
    const client = await connect(url, options);
    client.close();
  } catch (error) {
    return (error as { data: { code: number; msg: string } }).data;
  }
  throw new Error('the handshake was accepted');
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with the disconnect reason once the socket is disconnected (at once if it already is). */
export function waitForDisconnect(client: RtClient, timeoutMs = 5000): Promise<string> {
  if (!client.socket.connected) return Promise.resolve('already disconnected');
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`still connected after ${timeoutMs} ms`)), timeoutMs);
    client.socket.once('disconnect', (reason: string) => {
      clearTimeout(timer);
      resolve(reason);
    });
  });
}

/** The event_ids a client received more than once (a correct stream has none). */
export function duplicateEventIds(client: RtClient): string[] {
  const seen = new Set<string>();
  const twice = new Set<string>();
  for (const e of client.events) {
    if (e.position === null) continue;
    if (seen.has(e.event_id)) twice.add(e.event_id);
    seen.add(e.event_id);
  }
  return [...twice];
}

/** The keys of a received envelope, for an exact-shape check. */
export const envelopeKeys = (e: Received): string[] =>
  Object.keys(e)
    .filter((k) => k !== 'name')
    .sort();

/**
 * A barrier for "must NOT receive" checks: `user` changes their own profile, whose
 * user.profile_updated reaches that user, and each client waits for it. An event committed
 * before it would have arrived on those clients first; `settleMs` adds a short margin.
 */
export async function fence(t: TestApp, user: IssuedUser, clients: RtClient[], settleMs = 150): Promise<string> {
  const reply = await t.http
    .post('/app/sdk/users/me/update')
    .set(...bearer(user.token))
    .send({ signature: `fence ${Math.random().toString(36).slice(2)}` });
  const eventId = reply.body?.data?.event_id as string | undefined;
  if (reply.body?.code !== 0 || !eventId) throw new Error(`fence profile update failed: ${JSON.stringify(reply.body)}`);
  await Promise.all(clients.map((c) => c.waitForEvent(eventId)));
  await sleep(settleMs);
  return eventId;
}
