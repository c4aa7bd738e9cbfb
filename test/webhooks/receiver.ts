// A real HTTP receiver for webhook tests: it verifies every request's signature with the
// independent `standardwebhooks` package, records what it received, and answers as the test says.
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  id: string;
  body: { event_id: string; type: string; position: string; created_at: number; data: Record<string, unknown> };
  /** Which of the receiver's secrets verified it. */
  verifiedWith: string[];
}

/** What to do with a request: a status, after an optional delay; 'hang' never answers (until closed). */
export type Answer = number | 'hang' | { status: number; delayMs: number };

export class Receiver {
  readonly received: Received[] = [];
  readonly attempts: string[] = [];
  /** A webhook-id delivered while another request with the same id was still open. */
  concurrentDuplicates = 0;
  unverified = 0;
  answer: (id: string, attempt: number) => Answer = () => 200;
  private readonly inFlight = new Map<string, number>();
  private readonly open = new Set<ServerResponse>();
  private server: Server | null = null;
  port = 0;

  constructor(public secrets: string[] = []) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/hook`;
  }

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = null;
  }

  /** Delivered (2xx) events, in the order they arrived, without duplicates. */
  delivered(): Received[] {
    const seen = new Set<string>();
    return this.received.filter((r) => (seen.has(r.id) ? false : (seen.add(r.id), true)));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const id = String(req.headers['webhook-id']);
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(req.headers['webhook-timestamp']),
      'webhook-signature': String(req.headers['webhook-signature']),
    };
    const verifiedWith = this.secrets.filter((secret) => {
      try {
        new Webhook(secret).verify(raw, headers);
        return true;
      } catch {
        return false;
      }
    });
    if (verifiedWith.length === 0) {
      this.unverified++;
      res.writeHead(401).end();
      return;
    }
    if ((this.inFlight.get(id) ?? 0) > 0) this.concurrentDuplicates++;
    this.inFlight.set(id, (this.inFlight.get(id) ?? 0) + 1);
    this.attempts.push(id);
    const attempt = this.attempts.filter((a) => a === id).length;
    const answer = this.answer(id, attempt);
    const done = (status: number): void => {
      this.inFlight.set(id, (this.inFlight.get(id) ?? 1) - 1);
      this.open.delete(res);
      // An answer after the sender gave up (its timeout) is not a delivery.
      if (status >= 200 && status < 300 && !res.destroyed && !req.socket.destroyed)
        this.received.push({ id, body: JSON.parse(raw), verifiedWith });
      res.writeHead(status).end();
    };
    this.open.add(res);
    res.on('close', () => {
      if (this.open.delete(res)) this.inFlight.set(id, (this.inFlight.get(id) ?? 1) - 1);
    });
    if (answer === 'hang') return;
    if (typeof answer === 'number') return done(answer);
    setTimeout(() => done(answer.status), answer.delayMs);
  }
}

/** Polls `check` until it holds (generous: a loaded machine). */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Short waits for tests (validated like any setting): a failing endpoint is retried within tenths of a second. */
export const FAST_WEBHOOKS = {
  WEBHOOK_POLL_MS: '100',
  WEBHOOK_BACKOFF_BASE_MS: '50',
  WEBHOOK_BACKOFF_MAX_MS: '200',
  WEBHOOK_TIMEOUT_MS: '500',
  WEBHOOK_LEASE_MS: '3000',
  WEBHOOK_BREAKER_THRESHOLD: '3',
  WEBHOOK_BREAKER_COOLDOWN_MS: '300',
};
