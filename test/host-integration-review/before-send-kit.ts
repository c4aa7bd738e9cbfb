// Shared parts of the before-send review specs: the recording host, the two apps pointing at it, send helpers.
import { randomBytes } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient, cmid, friendCid } from '../helpers/api-client';
import { RtClient } from '../helpers/realtime';
import { IssuedUser, TestApp, startTestApp } from '../helpers/test-app';

export interface Call {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}
export type Handler = (call: Call, res: ServerResponse) => void;

export const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
export const FAILURE_MSG = 'the message could not be checked; try again later';

export function json(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

export const allow: Handler = (_c, res) => json(res, { action: 'allow' });

export interface HookApps {
  receiver: Server;
  allowApp: TestApp;
  rejectApp: TestApp;
  api: ApiClient;
  rapi: ApiClient;
}

/**
 * Starts the host and the two apps (ON_FAILURE allow and reject) for the enclosing describe and hands
 * them to `ready`. The host answers with `handler()`; `reset` runs before each test, as `calls` is emptied.
 */
export function useHookApps(hook: { handler: () => Handler; reset: () => void }, ready: (apps: HookApps) => void) {
  let receiver: Server;
  const calls: Call[] = [];
  let allowApp: TestApp;
  let rejectApp: TestApp;
  const clients: RtClient[] = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const call = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        calls.push(call);
        hook.handler()(call, res);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = (receiver.address() as AddressInfo).port;
    const base = {
      WEBHOOK_BEFORE_SEND_SECRET: SECRET,
      WEBHOOK_BEFORE_SEND_TIMEOUT_MS: '400',
    };
    allowApp = await startTestApp({ ...base, WEBHOOK_BEFORE_SEND_URL: `http://127.0.0.1:${port}/allow` });
    rejectApp = await startTestApp({
      ...base,
      WEBHOOK_BEFORE_SEND_URL: `http://127.0.0.1:${port}/reject`,
      WEBHOOK_BEFORE_SEND_ON_FAILURE: 'reject',
    });
    ready({ receiver, allowApp, rejectApp, api: new ApiClient(allowApp), rapi: new ApiClient(rejectApp) });
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await allowApp?.close();
    await rejectApp?.close();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });
  beforeEach(() => {
    calls.length = 0;
    hook.reset();
  });

  return { calls, clients };
}

export async function pair(client: ApiClient): Promise<[IssuedUser, IssuedUser]> {
  const [a, b] = await client.users(2);
  await client.befriend(a, b);
  return [a, b];
}
/** The texts in the one-to-one conversation as `b` sees it. */
export async function textsSeenBy(client: ApiClient, b: IssuedUser, a: IssuedUser): Promise<unknown[]> {
  const w = await client.raw.messages(b, {
    conversation_id: friendCid(a),
    known_last_seq: '0',
    known_updated_at: '0',
    known_deletion_revision: '0',
  });
  const messages = (w.body.data?.messages ?? w.body.data?.items ?? []) as Array<{ content: unknown }>;
  return messages.map((m) => m.content);
}
export const send = (client: ApiClient, a: IssuedUser, b: IssuedUser, content: unknown, type = 'text', id = cmid()) =>
  client.raw.send(a, { conversation_id: friendCid(b), client_message_id: id, type, content });
