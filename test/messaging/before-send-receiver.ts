// The before-send hook specs' host: an HTTP receiver checking signatures with standardwebhooks, and send helpers.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { BeforeSendRequest } from '../../src/contract/before-send';
import { MetricsService } from '../../src/metrics/metrics.service';
import { ApiClient, IssuedUser, Msg, cmid } from '../helpers/api-client';
import { TestApp } from '../helpers/test-app';

export type Answer = { status: number; body: unknown } | 'hang' | 'cut';

interface Received {
  path: string;
  /** The client's port: equal ports mean one kept-alive connection. */
  remotePort: number | undefined;
  headers: http.IncomingHttpHeaders;
  body: BeforeSendRequest;
}

/** The host: answers what `answer` says, records what it got after checking the signature. */
export class HookReceiver {
  readonly received: Received[] = [];
  readonly signatureFailures: string[] = [];
  answer: (request: BeforeSendRequest) => Answer = () => ({ status: 200, body: { action: 'allow' } });
  private readonly hanging: http.ServerResponse[] = [];
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      try {
        new Webhook(this.secret).verify(raw, {
          'webhook-id': String(req.headers['webhook-id']),
          'webhook-timestamp': String(req.headers['webhook-timestamp']),
          'webhook-signature': String(req.headers['webhook-signature']),
        });
      } catch (error) {
        this.signatureFailures.push((error as Error).message);
        res.writeHead(401).end();
        return;
      }
      const body = JSON.parse(raw) as BeforeSendRequest;
      this.received.push({ path: req.url ?? '', remotePort: req.socket.remotePort, headers: req.headers, body });
      const answer = this.answer(body);
      if (answer === 'hang') {
        this.hanging.push(res);
        return;
      }
      if (answer === 'cut') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        res.write('{"action":');
        setTimeout(() => res.destroy(), 20);
        return;
      }
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
    });
  });

  constructor(readonly secret: string) {}

  async start(): Promise<string> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Requests whose message has this client_message_id. */
  calls(clientMessageId: string): Received[] {
    return this.received.filter((r) => r.body.data.message.client_message_id === clientMessageId);
  }

  releaseHanging(): void {
    for (const res of this.hanging.splice(0)) res.destroy();
  }

  async stop(): Promise<void> {
    this.releaseHanging();
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}

export async function pair(client: ApiClient): Promise<{ a: IssuedUser; b: IssuedUser }> {
  const [a, b] = await client.users(2);
  await client.befriend(a, b);
  return { a, b };
}

export const sendText = (client: ApiClient, u: IssuedUser, conversationId: string, text: string, key = cmid()) =>
  client.raw.send(u, { conversation_id: conversationId, client_message_id: key, type: 'text', content: { text } });

export const stored = async (client: ApiClient, u: IssuedUser, conversationId: string): Promise<Msg[]> =>
  (await client.latest(u, conversationId)).messages;

export const outcomes = async (t: TestApp): Promise<Record<string, number>> => {
  const metric = await t.app.get(MetricsService).beforeSendOutcomes.get();
  return Object.fromEntries(metric.values.map((v) => [String(v.labels.outcome), v.value]));
};
