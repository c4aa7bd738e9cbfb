import { AddressInfo } from 'node:net';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AppError } from '../common/app-error';
import { HttpSmsSender, LogSmsSender } from './sms-sender';

interface Received {
  method?: string;
  authorization?: string;
  contentType?: string;
  body: Record<string, unknown>;
}

describe('SMS senders', () => {
  let server: Server;
  let url: string;
  let received: Received[];
  let answer: (response: ServerResponse) => void;

  beforeAll(async () => {
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({
          method: request.method,
          authorization: request.headers.authorization,
          contentType: request.headers['content-type'],
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
        });
        answer(response);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sms`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    received = [];
    answer = (response) => response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
  });

  const message = { phone: '+8613800138000', purpose: 'login' as const, code: '042424', validMinutes: 5 };
  const key = 'sms-provider-key-0123456789';

  it('POSTs the code as JSON with the key as a bearer', async () => {
    await new HttpSmsSender({ httpUrl: url, httpKey: key, httpTimeoutMs: 2000 }).send(message);
    expect(received).toEqual([
      {
        method: 'POST',
        authorization: `Bearer ${key}`,
        contentType: 'application/json',
        body: {
          phone: '+8613800138000',
          code: '042424',
          purpose: 'login',
          valid_minutes: 5,
          text: 'Your verification code is 042424. It is valid for 5 minutes.',
        },
      },
    ]);
  });

  it('fails with 503 (1500) on a non-2xx answer or a timeout, naming neither key nor code', async () => {
    answer = (response) => response.writeHead(500).end('boom');
    const sender = new HttpSmsSender({ httpUrl: url, httpKey: key, httpTimeoutMs: 300 });
    const refused = await sender.send(message).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect({ code: (refused as AppError).code, status: (refused as AppError).status }).toEqual({
      code: 1500,
      status: 503,
    });
    answer = () => undefined; // never answers
    const timedOut = (await sender.send(message).catch((error: unknown) => error)) as AppError;
    expect(timedOut.status).toBe(503);
    for (const error of [refused as AppError, timedOut]) {
      expect(error.message).not.toContain(key);
      expect(error.message).not.toContain('042424');
    }
  });

  it('fails with 503 when the provider is unreachable', async () => {
    const sender = new HttpSmsSender({ httpUrl: 'http://127.0.0.1:9/sms', httpKey: key, httpTimeoutMs: 500 });
    await expect(sender.send(message)).rejects.toMatchObject({ code: 1500, status: 503 });
  });

  it('log driver: keeps the latest codes per phone in the inbox, newest first', async () => {
    let now = 1000;
    const sender = new LogSmsSender(() => now);
    await sender.send(message);
    now = 2000;
    await sender.send({ ...message, code: '111111', purpose: 'signup' });
    expect(sender.read('+8613800138000')).toEqual([
      { phone: '+8613800138000', purpose: 'signup', code: '111111', sent_at: 2000 },
      { phone: '+8613800138000', purpose: 'login', code: '042424', sent_at: 1000 },
    ]);
    expect(sender.read('+8613800138001')).toEqual([]);
  });
});
