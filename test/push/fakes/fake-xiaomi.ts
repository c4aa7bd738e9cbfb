/**
 * A fake Xiaomi Mi Push server (v3 REST API, send by regid) on an HTTPS port.
 *
 *   const xiaomi = await FakeXiaomi.start({ appSecret: 'secret', packageName: 'com.example.chat' });
 *   // adapter config: url = xiaomi.url, caPem = xiaomi.caPem
 *
 * Speaks Xiaomi's protocol: POST /v3/message/regid, `Authorization: key=<AppSecret>`, a
 * form-urlencoded body; answers 200 with {result, code, description, reason?, trace_id, data?}.
 * It verifies the AppSecret (21301 "Authentication failed"), the form (required fields,
 * restricted_package_name against the configured package → 22022, title/description lengths,
 * numeric fields, extra.* values) and answers a dead regid with 20301 "No valid targets!".
 *
 * Records: `received` (accepted sends). Device display: `shown(regId)` — a later notification
 * with the same notify_id replaces the earlier one. Errors on demand: `failNext(n, {status, code,
 * reason})`, `addDeadToken(regId)`, `setDown(true)` (503 to everything), `setDelay(ms)`.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { localhostCertificate } from './localhost-certificate';

export interface FakeXiaomiOptions {
  appSecret: string;
  packageName: string;
}

export interface XiaomiReceived {
  token: string;
  /** notify_id: the replacement key. */
  collapseKey: number;
  title: string;
  description: string;
  /** payload parsed as JSON. */
  payload: Record<string, string> | null;
  timeToLiveMs: number | null;
  channelId: string | null;
  /** Every form field as received. */
  form: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
}

export interface FakeXiaomiFailure {
  status: number;
  /** Xiaomi error code, e.g. 10002 ("system busy"); omitted → a body that is not Xiaomi JSON. */
  code?: number;
  reason?: string;
  /** A raw body to answer instead (e.g. a success naming bad_regids). */
  body?: string;
  headers?: Record<string, string>;
}

const MAX_TTL_MS = 14 * 24 * 3600 * 1000;

class Rejected extends Error {
  constructor(
    readonly code: number,
    readonly description: string,
    reason: string,
  ) {
    super(reason);
  }
}

export class FakeXiaomi {
  readonly received: XiaomiReceived[] = [];
  private readonly deadTokens = new Set<string>();
  private readonly failures: FakeXiaomiFailure[] = [];
  private down = false;
  private delayMs = 0;

  private constructor(
    private readonly server: https.Server,
    readonly url: string,
    readonly caPem: string,
    private readonly options: FakeXiaomiOptions,
  ) {}

  static async start(options: FakeXiaomiOptions): Promise<FakeXiaomi> {
    const pems = await localhostCertificate();
    let fake: FakeXiaomi | null = null;
    const server = https.createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
      void fake?.handle(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    fake = new FakeXiaomi(server, `https://127.0.0.1:${port}`, pems.cert, options);
    return fake;
  }

  failNext(count: number, failure: FakeXiaomiFailure): void {
    for (let i = 0; i < count; i += 1) this.failures.push(failure);
  }

  addDeadToken(regId: string): void {
    this.deadTokens.add(regId);
  }

  setDown(down: boolean): void {
    this.down = down;
  }

  setDelay(ms: number): void {
    this.delayMs = ms;
  }

  /** What the device shows now, oldest first: a notification replaces an earlier one with the same notify_id. */
  shown(regId: string): XiaomiReceived[] {
    const shown: XiaomiReceived[] = [];
    for (const notification of this.received.filter((r) => r.token === regId)) {
      const index = shown.findIndex((s) => s.collapseKey === notification.collapseKey);
      if (index >= 0) shown.splice(index, 1);
      shown.push(notification);
    }
    return shown;
  }

  /** Sockets the server holds open (an adapter's keep-alive connections). */
  openConnections(): Promise<number> {
    return new Promise((resolve, reject) =>
      this.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
    );
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (this.delayMs > 0) await this.delay(res);
    if (res.destroyed) return;
    if (this.down) return this.reply(res, 503, '<html>503 Service Temporarily Unavailable</html>', 'text/html');
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'POST' || path !== '/v3/message/regid')
      return this.reply(res, 404, '<html>404 Not Found</html>', 'text/html');
    const traceId = `Xcm${randomBytes(10).toString('hex')}`;

    // The lower-case "key=" is part of Xiaomi's contract.
    if (req.headers.authorization !== `key=${this.options.appSecret}`) {
      return this.error(res, traceId, new Rejected(21301, '认证失败', 'Authentication failed'));
    }
    const failure = this.failures.shift();
    if (failure) {
      if (failure.body !== undefined)
        return this.reply(res, failure.status, failure.body, 'application/json;charset=UTF-8', failure.headers);
      if (failure.code === undefined)
        return this.reply(res, failure.status, '<html>error</html>', 'text/html', failure.headers);
      return this.reply(
        res,
        failure.status,
        JSON.stringify({
          result: 'error',
          code: failure.code,
          description: '',
          reason: failure.reason ?? '',
          trace_id: traceId,
        }),
        'application/json;charset=UTF-8',
        failure.headers,
      );
    }
    try {
      if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
        throw new Rejected(10017, '参数值非法', 'content-type must be application/x-www-form-urlencoded');
      }
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      const received = this.validate(form, req.headers);
      if (this.deadTokens.has(received.token)) throw new Rejected(20301, '发送消息失败', 'No valid targets!');
      this.received.push(received);
      this.reply(
        res,
        200,
        JSON.stringify({
          result: 'ok',
          trace_id: traceId,
          code: 0,
          data: { id: `scm${randomBytes(8).toString('hex')}` },
          description: '成功',
          info: 'Received push messages for 1 REGID',
        }),
      );
    } catch (error) {
      if (error instanceof Rejected) return this.error(res, traceId, error);
      throw error;
    }
  }

  private validate(form: Record<string, string>, headers: IncomingMessage['headers']): XiaomiReceived {
    const missing = (name: string): Rejected =>
      new Rejected(10016, '缺失必选参数', `missing required parameter ${name}`);
    const illegal = (name: string): Rejected => new Rejected(10017, '参数值非法', `illegal value of ${name}`);
    const integer = (name: string, min: number, max: number): number | null => {
      if (form[name] === undefined) return null;
      if (!/^-?\d+$/.test(form[name])) throw illegal(name);
      const value = Number(form[name]);
      if (value < min || value > max) throw illegal(name);
      return value;
    };
    const regId = form.registration_id;
    if (!regId) throw missing('registration_id');
    if (regId.includes(',')) throw illegal('registration_id: the fake takes one regid per request');
    if (!form.restricted_package_name) throw missing('restricted_package_name');
    if (!form.restricted_package_name.split(',').includes(this.options.packageName)) {
      throw new Rejected(22022, '应用程序package name不合法', `Invalid package name: ${form.restricted_package_name}`);
    }
    const passThrough = integer('pass_through', 0, 1) ?? 0;
    if (passThrough === 0) {
      if (!form.title || !form.title.trim()) throw missing('title');
      if (!form.description || !form.description.trim()) throw missing('description');
      if (Array.from(form.title).length >= 50) throw illegal('title: 50 characters or more');
      if (Array.from(form.description).length >= 128) throw illegal('description: 128 characters or more');
    }
    integer('notify_type', -1, 7);
    const notifyId = integer('notify_id', 0, 2 ** 31 - 1);
    const ttl = integer('time_to_live', 1, MAX_TTL_MS);
    if (form['extra.notify_foreground'] !== undefined && !['0', '1'].includes(form['extra.notify_foreground'])) {
      throw illegal('extra.notify_foreground');
    }
    const effect = form['extra.notify_effect'];
    if (effect !== undefined) {
      if (!['1', '2', '3'].includes(effect)) throw illegal('extra.notify_effect');
      if (effect === '2' && !form['extra.intent_uri']) throw missing('extra.intent_uri');
      if (effect === '3' && !form['extra.web_uri']) throw missing('extra.web_uri');
    }
    let payload: Record<string, string> | null = null;
    if (form.payload !== undefined) {
      if (Buffer.byteLength(form.payload) > 4096) throw new Rejected(65009, '消息内容太长', 'payload too long');
      try {
        payload = JSON.parse(form.payload) as Record<string, string>;
      } catch {
        payload = null;
      }
    }
    return {
      token: regId,
      // Without notify_id Xiaomi shows one notification per app: every message replaces the last.
      collapseKey: notifyId ?? 0,
      title: form.title ?? '',
      description: form.description ?? '',
      payload,
      timeToLiveMs: ttl,
      channelId: form['extra.channel_id'] ?? null,
      form,
      headers,
    };
  }

  private error(res: ServerResponse, traceId: string, rejected: Rejected): void {
    this.reply(
      res,
      200,
      JSON.stringify({
        result: 'error',
        code: rejected.code,
        description: rejected.description,
        reason: rejected.message,
        trace_id: traceId,
      }),
    );
  }

  /** Holds the answer for `delayMs`, ending early when the client gives up (no timer outlives a test). */
  private delay(res: ServerResponse): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        res.off('close', done);
        resolve();
      };
      const timer = setTimeout(done, this.delayMs);
      res.on('close', done);
    });
  }

  private reply(
    res: ServerResponse,
    status: number,
    body: string,
    contentType = 'application/json;charset=UTF-8',
    headers: Record<string, string> = {},
  ): void {
    res.writeHead(status, { 'content-type': contentType, ...headers });
    res.end(body);
  }
}
