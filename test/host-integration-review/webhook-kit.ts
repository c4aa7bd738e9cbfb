// Shared parts of the webhook review specs: a recording receiver, fast delivery settings, and the app setup.
import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AdminSession, adminSession } from '../helpers/admin-client';
import { ApiClient } from '../helpers/api-client';
import { isolatedDatabase, IsolatedDatabase } from '../helpers/isolated-database';
import { sleep } from '../helpers/realtime';
import { TestApp, startTestApp } from '../helpers/test-app';

export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}
export type Handler = (d: Delivery, res: ServerResponse) => void;

export const FAST = {
  WEBHOOK_POLL_MS: '100',
  WEBHOOK_BACKOFF_BASE_MS: '100',
  WEBHOOK_BACKOFF_MAX_MS: '400',
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_LEASE_MS: '3000',
};

export async function until<T>(
  check: () => T | undefined | null | false,
  what: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

export class Receiver {
  server!: Server;
  base = '';
  readonly all: Delivery[] = [];
  handlers = new Map<string, Handler>();
  inflight = new Map<string, number>();
  maxInflight = new Map<string, number>();

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const d = {
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        this.all.push(d);
        const n = (this.inflight.get(d.path) ?? 0) + 1;
        this.inflight.set(d.path, n);
        this.maxInflight.set(d.path, Math.max(n, this.maxInflight.get(d.path) ?? 0));
        res.on('close', () => this.inflight.set(d.path, (this.inflight.get(d.path) ?? 1) - 1));
        const h = this.handlers.get(d.path);
        if (h) h(d, res);
        else {
          res.writeHead(204);
          res.end();
        }
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  at(path: string): Delivery[] {
    return this.all.filter((d) => d.path === path);
  }
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export const parsed = (d: Delivery) =>
  JSON.parse(d.body) as {
    event_id: string;
    type: string;
    position: string;
    created_at: number;
    data: Record<string, unknown>;
  };

export interface WebhookApp {
  t: TestApp;
  api: ApiClient;
  owner: AdminSession;
  moderator: AdminSession;
}

/**
 * Starts a receiver and one app on its own database for the enclosing describe, hands the app to
 * `ready` so the spec's own variables are set, and answers the endpoint helpers the tests call.
 */
export function useWebhookApp(ready: (app: WebhookApp) => void) {
  let db: IsolatedDatabase;
  let t: TestApp;
  let owner: AdminSession;
  const rx = new Receiver();
  let pathN = 0;
  const freshPath = () => `/hook-${(pathN += 1)}`;

  beforeAll(async () => {
    await rx.start();
    db = await isolatedDatabase();
    t = await startTestApp({ ...db.env, ...FAST });
    owner = await adminSession(t, 'owner');
    ready({ t, api: new ApiClient(t), owner, moderator: await adminSession(t, 'moderator') });
  });
  afterAll(async () => {
    await t?.close();
    await db?.drop();
    await rx.stop();
  });

  async function create(
    body: Record<string, unknown>,
  ): Promise<{ id: string; secret: string; endpoint: Record<string, unknown> }> {
    const r = await owner.post('/app/admin/webhooks/create', body);
    expect({ code: r.body.code, msg: r.body.msg }).toEqual({ code: 0, msg: 'ok' });
    return { id: r.body.data.endpoint.id, secret: r.body.data.secret, endpoint: r.body.data.endpoint };
  }
  const remove = (id: string) => owner.post('/app/admin/webhooks/delete', { id });

  return { rx, freshPath, create, remove };
}
