/**
 * A fake Huawei Push Kit (v1 REST API) and its OAuth server, on one HTTPS port.
 *
 *   const huawei = await FakeHuawei.start({ appId: '10086', clientId: '10086', clientSecret: 's3cret' });
 *   // adapter config: oauthUrl = `${huawei.url}/oauth2/v3/token`, pushUrl = huawei.url, caPem = huawei.caPem
 *
 * Speaks Huawei's protocols. v1 (HMS, Android): POST /oauth2/v3/token (form: grant_type=client_credentials, client_id,
 * client_secret) → {access_token, expires_in, token_type}; POST /v1/{appId}/messages:send with
 * `Authorization: Bearer <access token>` and a JSON body → {code, msg, requestId}. It verifies the
 * client credentials, the access token (unknown → 80200001, expired → 80200003, both HTTP 401), the
 * body (token array, android block fields and ranges, ttl format, size) and answers as Huawei does.
 * v3 (HarmonyOS NEXT): POST /v3/{projectId}/messages:send with `push-type: 0` and a PS256 JWT signed
 * by the service account in `serviceAccountJson` (verified with its public key: kid, iss, aud,
 * lifetime ≤ 1 day → 80300036, expired or `expireJwts()` → 80200005) and a {payload, target,
 * pushOptions} body.
 *
 * Records: `received` (accepted sends), `tokenRequests` (OAuth grants issued). Device display:
 * `shown(token)` — a later notification with the same tag (v1) or notifyId (v3) replaces the earlier one.
 * Errors on demand: `failNext(n, {status, code, msg})`, `addDeadToken(token)` (80300007),
 * `expireAccessTokens()`, `setDown(true)` (503 to everything), `setDelay(ms)`.
 */
import { constants, createPublicKey, generateKeyPair, randomBytes, verify, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import { localhostCertificate } from './localhost-certificate';

export interface FakeHuaweiOptions {
  appId: string;
  clientId: string;
  clientSecret: string;
  /** expires_in of issued access tokens, seconds. */
  tokenLifetimeSec?: number;
  /** The AppGallery Connect project of the v3 API and of the service account. */
  projectId?: string;
}

export interface HuaweiReceived {
  api: 'v1' | 'v3';
  token: string;
  /** The replacement key: android.notification.tag (v1), String(notifyId) (v3). */
  collapseKey: string | undefined;
  /** android.urgency (v1); 'NORMAL' on v3, which has no urgency for alerts. */
  priority: string;
  category: string | undefined;
  ttl: string;
  title: string;
  body: string;
  /** v1 android.notification.badge; v3 badge as {set_num, add_num}. */
  badge: { set_num?: number; add_num?: number; class?: string } | undefined;
  /** v1: message.data parsed (Huawei carries it as a JSON string); v3: clickAction.data. */
  data: Record<string, string> | null;
  /** The whole request body as received. */
  payload: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
}

export interface FakeHuaweiFailure {
  status: number;
  /** Huawei business code, e.g. '81000001'; omitted → a body that is not Huawei JSON. */
  code?: string;
  msg?: string;
  /** A raw body to answer instead (e.g. a partial success naming illegal_tokens). */
  body?: string;
  /** Applies to OAuth requests instead of sends. */
  oauth?: boolean;
  headers?: Record<string, string>;
}

const CATEGORIES = new Set([
  'IM',
  'VOIP',
  'SUBSCRIPTION',
  'TRAVEL',
  'HEALTH',
  'WORK',
  'ACCOUNT',
  'EXPRESS',
  'FINANCE',
  'DEVICE_REMINDER',
  'SYSTEM_REMINDER',
  'MAIL',
  'PLAY_VOICE',
  'MARKETING',
]);
const MAX_TTL_SECONDS = 15 * 24 * 3600;
const MAX_MESSAGE_BYTES = 4096;

class Invalid extends Error {}

export class FakeHuawei {
  readonly received: HuaweiReceived[] = [];
  tokenRequests = 0;
  /** Access tokens refused by the fake so far (Authorization headers it did not accept). */
  rejectedAuth = 0;

  /** The service account key file (JSON) whose private key signs v3 JWTs. */
  readonly serviceAccountJson: string;

  private readonly accessTokens = new Map<string, number>();
  private readonly refusedJwts = new Set<string>();
  private readonly seenJwts = new Set<string>();
  private readonly deadTokens = new Set<string>();
  private readonly failures: FakeHuaweiFailure[] = [];
  private down = false;
  private delayMs = 0;
  private requestCounter = 0;

  private constructor(
    private readonly server: https.Server,
    readonly url: string,
    readonly caPem: string,
    private readonly options: Required<FakeHuaweiOptions>,
    private readonly serviceAccount: { keyId: string; subAccount: string; publicKey: KeyObject },
    privateKeyPem: string,
  ) {
    this.serviceAccountJson = JSON.stringify({
      project_id: options.projectId,
      key_id: serviceAccount.keyId,
      private_key: privateKeyPem,
      sub_account: serviceAccount.subAccount,
      auth_uri: 'https://oauth-login.cloud.huawei.com/oauth2/v3/authorize',
      token_uri: 'https://oauth-login.cloud.huawei.com/oauth2/v3/token',
    });
  }

  static async start(options: FakeHuaweiOptions): Promise<FakeHuawei> {
    const pems = await localhostCertificate();
    let fake: FakeHuawei | null = null;
    const server = https.createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
      void fake?.handle(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const keys = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
    const privateKeyPem = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    fake = new FakeHuawei(
      server,
      `https://127.0.0.1:${port}`,
      pems.cert,
      { tokenLifetimeSec: 3600, projectId: '388421841222199046', ...options },
      {
        keyId: randomBytes(16).toString('hex'),
        subAccount: String(100000000 + Math.floor(Math.random() * 1e8)),
        publicKey: createPublicKey(keys.privateKey),
      },
      privateKeyPem,
    );
    return fake;
  }

  /** The next `count` matching requests (sends, or OAuth with `oauth: true`) get this answer instead. */
  failNext(count: number, failure: FakeHuaweiFailure): void {
    for (let i = 0; i < count; i += 1) this.failures.push(failure);
  }

  addDeadToken(token: string): void {
    this.deadTokens.add(token);
  }

  /** Every access token issued so far is now expired (the next send with one gets 80200003). */
  expireAccessTokens(): void {
    for (const token of this.accessTokens.keys()) this.accessTokens.set(token, 0);
  }

  /** Every v3 JWT seen so far is now refused as expired (80200005). */
  expireJwts(): void {
    for (const jwt of this.seenJwts) this.refusedJwts.add(jwt);
  }

  setDown(down: boolean): void {
    this.down = down;
  }

  setDelay(ms: number): void {
    this.delayMs = ms;
  }

  /** What the device shows now, oldest first: a notification replaces an earlier one with the same tag. */
  shown(token: string): HuaweiReceived[] {
    const shown: HuaweiReceived[] = [];
    for (const notification of this.received.filter((r) => r.token === token)) {
      const index =
        notification.collapseKey === undefined
          ? -1
          : shown.findIndex((s) => s.collapseKey === notification.collapseKey);
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
    const raw = Buffer.concat(chunks);
    if (this.delayMs > 0) await this.delay(res);
    if (res.destroyed) return;
    if (this.down) return this.reply(res, 503, '<html>Service Unavailable</html>', 'text/html');
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'POST' && path === '/oauth2/v3/token') return this.oauth(req, res, raw.toString('utf8'));
    if (req.method === 'POST' && path === `/v1/${this.options.appId}/messages:send`) return this.send(req, res, raw);
    if (req.method === 'POST' && path === `/v3/${this.options.projectId}/messages:send`)
      return this.sendV3(req, res, raw);
    return this.reply(res, 404, JSON.stringify({ code: '404', msg: 'Not Found' }));
  }

  private oauth(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const failure = this.takeFailure(true);
    if (failure) return this.fail(res, failure);
    if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      return this.reply(
        res,
        400,
        JSON.stringify({ error: 1102, sub_error: 20001, error_description: 'missing required param' }),
      );
    }
    const form = new URLSearchParams(raw);
    if (form.get('grant_type') !== 'client_credentials') {
      return this.reply(
        res,
        400,
        JSON.stringify({ error: 1102, sub_error: 20001, error_description: 'unsupported grant_type' }),
      );
    }
    if (form.get('client_id') !== this.options.clientId || form.get('client_secret') !== this.options.clientSecret) {
      return this.reply(
        res,
        400,
        JSON.stringify({ error: 1101, sub_error: 20109, error_description: 'invalid client' }),
      );
    }
    this.tokenRequests += 1;
    const accessToken = `CF${randomBytes(24).toString('base64url')}`;
    this.accessTokens.set(accessToken, Date.now() + this.options.tokenLifetimeSec * 1000);
    this.reply(
      res,
      200,
      JSON.stringify({ access_token: accessToken, expires_in: this.options.tokenLifetimeSec, token_type: 'Bearer' }),
    );
  }

  private send(req: IncomingMessage, res: ServerResponse, raw: Buffer): void {
    const requestId = `${Date.now()}${String((this.requestCounter += 1)).padStart(6, '0')}`;
    const answer = (status: number, code: string, msg: string): void =>
      this.reply(res, status, JSON.stringify({ code, msg, requestId }));

    const auth = String(req.headers.authorization ?? '');
    const accessToken = auth.startsWith('Bearer ') ? auth.slice('Bearer '.length) : '';
    const expiry = this.accessTokens.get(accessToken);
    if (expiry === undefined) {
      this.rejectedAuth += 1;
      return answer(401, '80200001', 'Oauth authentication error');
    }
    if (expiry <= Date.now()) {
      this.rejectedAuth += 1;
      return answer(401, '80200003', 'Oauth Token expired.');
    }
    const failure = this.takeFailure(false);
    if (failure) return this.fail(res, failure, requestId);
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) {
      return answer(400, '80100001', 'Some request parameters are incorrect: content-type');
    }
    if (raw.length > MAX_MESSAGE_BYTES)
      return answer(400, '80300008', 'The message body size exceeds the default value');

    let payload: Record<string, unknown>;
    let received: Omit<HuaweiReceived, 'token'>;
    let tokens: string[];
    try {
      payload = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      ({ received, tokens } = this.validate(payload));
    } catch (error) {
      const msg = error instanceof Invalid ? error.message : 'Incorrect message structure';
      return answer(400, error instanceof Invalid ? '80100001' : '80100003', msg);
    }
    this.answerTokens(received, tokens, req, answer);
  }

  private answerTokens(
    received: Omit<HuaweiReceived, 'token'>,
    tokens: string[],
    req: IncomingMessage,
    answer: (status: number, code: string, msg: string) => void,
  ): void {
    const dead = tokens.filter((token) => this.deadTokens.has(token));
    const live = tokens.filter((token) => !this.deadTokens.has(token));
    for (const token of live) this.received.push({ ...received, token, headers: req.headers });
    if (live.length === 0) return answer(200, '80300007', 'All the tokens are invalid');
    if (dead.length > 0) {
      return answer(
        200,
        '80100000',
        JSON.stringify({ success: live.length, failure: dead.length, illegal_tokens: dead }),
      );
    }
    answer(200, '80000000', 'Success');
  }

  /** Checks the body the way Push Kit does for a token send with an Android notification. */
  private validate(payload: Record<string, unknown>): { received: Omit<HuaweiReceived, 'token'>; tokens: string[] } {
    const check = (ok: boolean, what: string): void => {
      if (!ok) throw new Invalid(`Some request parameters are incorrect: ${what}`);
    };
    check(payload.validate_only === undefined || typeof payload.validate_only === 'boolean', 'validate_only');
    const message = payload.message as Record<string, unknown> | undefined;
    check(!!message && typeof message === 'object', 'message');
    const tokens = message!.token as unknown;
    check(Array.isArray(tokens) && tokens.length >= 1 && tokens.length <= 1000, 'message.token');
    check(
      (tokens as unknown[]).every((t) => typeof t === 'string' && t.length > 0),
      'message.token',
    );
    if (message!.data !== undefined) check(typeof message!.data === 'string', 'message.data must be a JSON string');
    const android = message!.android as Record<string, unknown> | undefined;
    check(!!android && typeof android === 'object', 'message.android');
    const a = android!;
    if (a.collapse_key !== undefined)
      check(
        Number.isInteger(a.collapse_key) && (a.collapse_key as number) >= -1 && (a.collapse_key as number) <= 100,
        'android.collapse_key',
      );
    check(a.urgency === undefined || a.urgency === 'HIGH' || a.urgency === 'NORMAL', 'android.urgency');
    check(a.category === undefined || CATEGORIES.has(a.category as string), 'android.category');
    const ttl = a.ttl === undefined ? '86400s' : a.ttl;
    check(typeof ttl === 'string' && /^\d+(\.\d+)?s?$/.test(ttl), 'android.ttl');
    const ttlSeconds = parseFloat(ttl as string);
    check(ttlSeconds > 0 && ttlSeconds <= MAX_TTL_SECONDS, 'android.ttl range');
    const n = a.notification as Record<string, unknown> | undefined;
    check(!!n && typeof n === 'object', 'android.notification');
    check(typeof n!.title === 'string' && (n!.title as string).length > 0, 'android.notification.title');
    check(typeof n!.body === 'string' && (n!.body as string).length > 0, 'android.notification.body');
    check(n!.tag === undefined || typeof n!.tag === 'string', 'android.notification.tag');
    const click = n!.click_action as Record<string, unknown> | undefined;
    check(!!click && [1, 2, 3, 4].includes(click.type as number), 'android.notification.click_action.type');
    if (click!.type === 1)
      check(typeof click!.intent === 'string' || typeof click!.action === 'string', 'click_action.intent');
    if (click!.type === 2) check(typeof click!.url === 'string', 'click_action.url');
    check(
      n!.importance === undefined || ['LOW', 'NORMAL', 'HIGH'].includes(n!.importance as string),
      'android.notification.importance',
    );
    const badge = n!.badge as HuaweiReceived['badge'] | undefined;
    if (badge !== undefined) {
      check(typeof badge.class === 'string' && badge.class.length > 0, 'android.notification.badge.class');
      check(
        badge.set_num === undefined || (Number.isInteger(badge.set_num) && badge.set_num >= 0 && badge.set_num <= 99),
        'badge.set_num',
      );
      check(
        badge.add_num === undefined || (Number.isInteger(badge.add_num) && badge.add_num >= 1 && badge.add_num <= 99),
        'badge.add_num',
      );
    }
    let data: Record<string, string> | null = null;
    if (typeof message!.data === 'string') data = JSON.parse(message!.data) as Record<string, string>;
    return {
      tokens: tokens as string[],
      received: {
        api: 'v1',
        collapseKey: n!.tag as string | undefined,
        priority: (a.urgency as string | undefined) ?? 'NORMAL',
        category: a.category as string | undefined,
        ttl: ttl as string,
        title: n!.title as string,
        body: n!.body as string,
        badge,
        data,
        payload,
        headers: {},
      },
    };
  }

  private sendV3(req: IncomingMessage, res: ServerResponse, raw: Buffer): void {
    const requestId = `${Date.now()}${String((this.requestCounter += 1)).padStart(6, '0')}`;
    const answer = (status: number, code: string, msg: string): void =>
      this.reply(res, status, JSON.stringify({ code, msg, requestId }));
    const auth = String(req.headers.authorization ?? '');
    const jwtProblem = this.checkJwt(auth.startsWith('Bearer ') ? auth.slice('Bearer '.length) : '');
    if (jwtProblem) {
      this.rejectedAuth += 1;
      return answer(jwtProblem.status, jwtProblem.code, jwtProblem.msg);
    }
    const failure = this.takeFailure(false);
    if (failure) return this.fail(res, failure, requestId);
    if (req.headers['push-type'] !== '0') return answer(400, '80100001', 'Check Parameter Error: push-type');
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) {
      return answer(400, '80100001', 'Check Parameter Error: content-type');
    }
    if (raw.length > MAX_MESSAGE_BYTES) return answer(400, '80300008', 'Push message size is too long.');
    let received: Omit<HuaweiReceived, 'token'>;
    let tokens: string[];
    try {
      const payload = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      ({ received, tokens } = this.validateV3(payload));
    } catch (error) {
      const msg = error instanceof Invalid ? error.message : 'Illegal payload';
      return answer(400, error instanceof Invalid ? '80100001' : '80100003', msg);
    }
    this.answerTokens(received, tokens, req, answer);
  }

  /** Verifies a service-account JWT as Push Kit v3 does; null when it is accepted. */
  private checkJwt(jwt: string): { status: number; code: string; msg: string } | null {
    const refused = { status: 401, code: '80200001', msg: 'Authentication Error.' };
    const parts = jwt.split('.');
    if (parts.length !== 3) return refused;
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as Record<string, unknown>;
      claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      return refused;
    }
    if (header.alg !== 'PS256' || header.typ !== 'JWT' || header.kid !== this.serviceAccount.keyId) return refused;
    const signed = verify(
      'sha256',
      Buffer.from(`${parts[0]}.${parts[1]}`),
      { key: this.serviceAccount.publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 },
      Buffer.from(parts[2], 'base64url'),
    );
    if (!signed) return refused;
    if (claims.iss !== this.serviceAccount.subAccount) return refused;
    if (claims.aud !== 'https://oauth-login.cloud.huawei.com/oauth2/v3/token') return refused;
    if (typeof claims.iat !== 'number' || typeof claims.exp !== 'number') return refused;
    if (claims.exp - claims.iat > 86400)
      return { status: 400, code: '80300036', msg: 'JWT expire period over threshold.' };
    this.seenJwts.add(jwt);
    if (claims.exp * 1000 <= Date.now() || this.refusedJwts.has(jwt)) {
      return { status: 401, code: '80200005', msg: 'Jwt token expired.' };
    }
    return null;
  }

  /** Checks a v3 alert body (push-type 0): payload.notification, target.token, pushOptions. */
  private validateV3(body: Record<string, unknown>): { received: Omit<HuaweiReceived, 'token'>; tokens: string[] } {
    const check = (ok: boolean, what: string): void => {
      if (!ok) throw new Invalid(`Check Parameter Error: ${what}`);
    };
    const target = body.target as Record<string, unknown> | undefined;
    const tokens = target?.token as unknown;
    check(Array.isArray(tokens) && tokens.length >= 1 && tokens.length <= 1000, 'target.token');
    check(
      (tokens as unknown[]).every((t) => typeof t === 'string' && t.length > 0),
      'target.token',
    );
    const options = (body.pushOptions ?? {}) as Record<string, unknown>;
    const ttl = options.ttl === undefined ? 86400 : options.ttl;
    check(Number.isInteger(ttl) && (ttl as number) >= 1 && (ttl as number) <= MAX_TTL_SECONDS, 'pushOptions.ttl');
    const n = (body.payload as Record<string, unknown> | undefined)?.notification as
      Record<string, unknown> | undefined;
    check(!!n && typeof n === 'object', 'payload.notification');
    check(CATEGORIES.has(n!.category as string), 'payload.notification.category');
    check(typeof n!.title === 'string' && (n!.title as string).length > 0, 'payload.notification.title');
    check(typeof n!.body === 'string' && (n!.body as string).length > 0, 'payload.notification.body');
    const click = n!.clickAction as Record<string, unknown> | undefined;
    check(!!click && (click.actionType === 0 || click.actionType === 1), 'payload.notification.clickAction.actionType');
    if (click!.actionType === 1)
      check(typeof click!.action === 'string' || typeof click!.uri === 'string', 'clickAction.action');
    if (click!.data !== undefined)
      check(typeof click!.data === 'object' && !Array.isArray(click!.data), 'clickAction.data');
    const notifyId = n!.notifyId;
    check(
      notifyId === undefined ||
        (Number.isInteger(notifyId) && (notifyId as number) >= 0 && (notifyId as number) <= 2 ** 31 - 1),
      'notifyId',
    );
    const badge = n!.badge as { setNum?: number; addNum?: number } | undefined;
    if (badge !== undefined) {
      check(
        badge.setNum === undefined || (Number.isInteger(badge.setNum) && badge.setNum >= 0 && badge.setNum <= 99),
        'badge.setNum',
      );
      check(
        badge.addNum === undefined || (Number.isInteger(badge.addNum) && badge.addNum >= 1 && badge.addNum <= 99),
        'badge.addNum',
      );
    }
    return {
      tokens: tokens as string[],
      received: {
        api: 'v3',
        collapseKey: notifyId === undefined ? undefined : String(notifyId),
        priority: 'NORMAL',
        category: n!.category as string,
        ttl: `${ttl as number}s`,
        title: n!.title as string,
        body: n!.body as string,
        badge: badge === undefined ? undefined : { set_num: badge.setNum, add_num: badge.addNum },
        data: (click!.data as Record<string, string> | undefined) ?? null,
        payload: body,
        headers: {},
      },
    };
  }

  private takeFailure(oauth: boolean): FakeHuaweiFailure | null {
    const index = this.failures.findIndex((f) => !!f.oauth === oauth);
    return index < 0 ? null : this.failures.splice(index, 1)[0];
  }

  private fail(res: ServerResponse, failure: FakeHuaweiFailure, requestId?: string): void {
    const body =
      failure.body !== undefined
        ? failure.body
        : failure.code === undefined
          ? '<html>error</html>'
          : JSON.stringify(
              failure.oauth
                ? { error: Number(failure.code), error_description: failure.msg ?? '' }
                : { code: failure.code, msg: failure.msg ?? '', requestId },
            );
    const html = failure.body === undefined && failure.code === undefined;
    this.reply(res, failure.status, body, html ? 'text/html' : 'application/json', failure.headers);
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
