// Shared pieces of the Web SDK scenario specs: an SDK client against the test app, with a
// controllable environment, and a window transport that tests can delay, fail or record.
import { createClient, ImClient } from '../../sdk/web/src/index';
import type { ClientEnvironment } from '../../sdk/web/src/environment';
import type { ServerEvent } from '../../sdk/web/src/events';
import type { ReadReply, WindowReply, WindowTransport } from '../../sdk/web/src/conversation-window';
import { listen } from '../helpers/realtime';
import { TestApp, hostAuth, startTestApp } from '../helpers/test-app';
import { ApiClient } from '../helpers/api-client';

/** Node has no `document` or `window`: the tests fire foreground and online themselves. */
export function testEnvironment(): ClientEnvironment & { online(): void; foreground(): void } {
  const online = new Set<() => void>();
  const foreground = new Set<() => void>();
  return {
    onOnline: (listener) => (online.add(listener), () => online.delete(listener)),
    onForeground: (listener) => (foreground.add(listener), () => foreground.delete(listener)),
    online: () => online.forEach((l) => l()),
    foreground: () => foreground.forEach((l) => l()),
  };
}

/**
 * Polls `check` (which may be async: its promise is awaited, not taken as a truthy value). The
 * default deadline is generous (the CI machine is loaded); a wait returns as soon as it holds.
 */
export async function until<T>(
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The host backend's part: the token reply for `userId()`, counted. */
export function hostProvider(t: TestApp, userId: () => string) {
  const calls = { count: 0 };
  const fn = async () => {
    calls.count += 1;
    const response = await t.http
      .post('/app/sdk/token')
      .set(...hostAuth())
      .send({ user_id: userId(), nickname: 'SDK user' });
    return response.body.data as unknown;
  };
  return { fn, calls };
}

export interface SdkUnderTest {
  c: ImClient;
  events: ServerEvent[];
  readies: Array<{ resumed: boolean; replayed: number }>;
  ended: Array<{ code: number; kind: string }>;
  recoveries: string[][];
  environment: ReturnType<typeof testEnvironment>;
}

export function sdkClient(base: string, authProvider: () => Promise<unknown>, registry: ImClient[]): SdkUnderTest {
  const environment = testEnvironment();
  const c = createClient({ baseUrl: base, authProvider, environment });
  registry.push(c);
  const sut: SdkUnderTest = { c, events: [], readies: [], ended: [], recoveries: [], environment };
  c.on('event', (e) => sut.events.push(e as ServerEvent));
  c.on('connection.ready', (r) => sut.readies.push(r));
  c.on('session.ended', (e) => sut.ended.push(e));
  c.on('recover', (r) => sut.recoveries.push(r.reasons));
  return sut;
}

/**
 * A window transport over the client's HTTP calls that a test can steer: hold the next
 * `messages` reply until released, fail the next reads, and see every read submitted.
 */
export class SteeredTransport implements WindowTransport {
  readonly reads: string[] = [];
  readonly queries: Array<Record<string, string>> = [];
  failReads = 0;
  private hold: { gate: Promise<void>; release: () => void } | null = null;

  constructor(private readonly c: ImClient) {}

  /** The next `messages` reply waits (after the server answered) until `release()`. */
  holdNextReply(): () => void {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    this.hold = { gate, release };
    return release;
  }

  async messages(query: Record<string, string>): Promise<WindowReply> {
    this.queries.push(query);
    const hold = this.hold;
    this.hold = null;
    const reply = await this.c.get<WindowReply>('/app/sdk/messages', query);
    if (hold) await hold.gate;
    return reply;
  }

  async read(conversationId: string, readSeq: string): Promise<ReadReply> {
    this.reads.push(readSeq);
    if (this.failReads > 0) {
      this.failReads -= 1;
      throw new Error('network flap');
    }
    return this.c.post<ReadReply>('/app/sdk/messages/read', { conversation_id: conversationId, read_seq: readSeq });
  }
}

export interface SdkApp {
  t: TestApp;
  /** The app's listening origin, for the SDK's fetch and socket.io. */
  base: string;
  api: ApiClient;
  /** Clients made in a test; destroyed after it. */
  clients: ImClient[];
}

/** One listening test app per spec file, and the SDK clients of each test destroyed after it. */
export function useSdkApp(env: Record<string, string> = {}): SdkApp {
  const app = { clients: [] as ImClient[] } as SdkApp;
  beforeAll(async () => {
    app.t = await startTestApp(env);
    app.base = await listen(app.t);
    app.api = new ApiClient(app.t);
  });
  afterEach(() => {
    for (const client of app.clients.splice(0)) client.destroy();
  });
  afterAll(() => app.t.close());
  return app;
}
