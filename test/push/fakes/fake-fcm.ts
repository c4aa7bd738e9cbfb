import { createPublicKey, generateKeyPair, KeyObject, randomBytes, verify } from 'node:crypto';
import { AddressInfo, Socket } from 'node:net';
import * as https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { localhostCertificate } from './localhost-certificate';

/**
 * A fake Firebase Cloud Messaging (HTTP v1) with its Google OAuth2 token endpoint, on one HTTPS
 * server at 127.0.0.1 (certificate for localhost/127.0.0.1/::1; trust `caPem`).
 *
 *   const fcm = await FakeFcm.start();
 *   const account = await fcm.serviceAccount();          // key pair + key JSON, token_uri = fcm.tokenUri
 *   env.FCM_SERVICE_ACCOUNT = account.json; env.FCM_URL = fcm.url; env.FCM_CA_FILE = <file with fcm.caPem>
 *   ... fcm.received / fcm.shown(token) ...
 *   await fcm.close();
 *
 * `POST /token` is the JWT-bearer grant: it verifies the RS256 assertion with the account's public
 * key, grant_type, kid, aud (= tokenUri), scope (firebase.messaging) and iat/exp, and issues opaque
 * access tokens. `POST /v1/projects/<id>/messages:send` checks the bearer token (issued here,
 * unexpired, for that project; else 401 UNAUTHENTICATED / 403 PERMISSION_DENIED) and the body
 * (exactly one of token/topic/condition, string data values without reserved keys, android
 * priority/ttl, apns headers, the 4096-byte payload limit) the way FCM does, answering Google's
 * error bodies. Registration tokens must look like FCM's (`FakeFcm.deviceToken()` makes one).
 *
 * Errors on demand: `markDead(token)` (404 UNREGISTERED), `failNext(n, …)` on sends (before any
 * check), `failTokenNext(n, …)` on the token endpoint, `expireTokens()` (every issued access token
 * stops working: the adapter's next send gets a 401), `setDown(true)` (503 on both endpoints) or
 * `setDown('reset')` (connections dropped), `setDelay({send, token})`.
 *
 * `received` lists accepted messages; `shown(token)` what that Android device displays: messages
 * with a notification block, a later one with the same tag (else collapse_key) replacing the
 * earlier. Data-only messages (calls) reach the app, not the tray, so they are not in `shown`.
 */
export class FakeFcm {
  /** Accepted messages, in order. */
  readonly received: FcmReceived[] = [];
  /** Every answer given, in order: which endpoint and the status. */
  readonly answered: Array<{ endpoint: 'token' | 'send'; status: number }> = [];
  /** Tokens issued by the token endpoint so far. */
  tokensIssued = 0;

  private readonly accounts = new Map<string, { key: KeyObject; keyId: string; projectId: string }>();
  private readonly accessTokens = new Map<string, { projectId: string; expiresAt: number }>();
  private readonly dead = new Set<string>();
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private sendFailures: Array<FcmFailure> = [];
  private tokenFailures: Array<FcmFailure> = [];
  private down: boolean | 'reset' = false;
  private delays = { send: 0, token: 0 };
  private tokenLifetimeSeconds = 3599;

  private constructor(
    private readonly server: https.Server,
    readonly url: string,
    readonly caPem: string,
  ) {}

  static async start(): Promise<FakeFcm> {
    const pems = await localhostCertificate();
    const server = https.createServer({ key: pems.private, cert: pems.cert, keepAliveTimeout: 30_000 });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const fake = new FakeFcm(server, `https://127.0.0.1:${port}`, pems.cert);
    server.on('secureConnection', (socket: Socket) => {
      fake.sockets.add(socket);
      socket.on('close', () => fake.sockets.delete(socket));
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => fake.handle(req, res));
    return fake;
  }

  /** A registration token shaped like FCM's. */
  static deviceToken(): string {
    return `${randomBytes(16).toString('base64url')}:APA91b${randomBytes(100).toString('base64url')}`;
  }

  /** The OAuth2 token endpoint (the service account's token_uri). */
  get tokenUri(): string {
    return `${this.url}/token`;
  }

  /** Open client connections (0 once every client has closed its sockets). */
  get openConnections(): number {
    return this.sockets.size;
  }

  /** A fresh RSA key pair and its service-account key JSON, registered here for `projectId`. */
  async serviceAccount(projectId = 'fake-project'): Promise<FakeServiceAccount> {
    const { privateKey, publicKey } = await promisify(generateKeyPair)('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const keyId = randomBytes(20).toString('hex');
    const clientEmail = `push-${randomBytes(4).toString('hex')}@${projectId}.iam.gserviceaccount.com`;
    this.accounts.set(clientEmail, { key: createPublicKey(publicKey), keyId, projectId });
    const key = {
      type: 'service_account',
      project_id: projectId,
      private_key_id: keyId,
      private_key: privateKey,
      client_email: clientEmail,
      client_id: String(100_000_000_000_000 + Math.floor(Math.random() * 1e12)),
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      token_uri: this.tokenUri,
      auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
      universe_domain: 'googleapis.com',
    };
    return {
      json: JSON.stringify(key, null, 2),
      key,
      clientEmail,
      projectId,
      privateKeyPem: privateKey,
      publicKeyPem: publicKey,
    };
  }

  /** Sends to this token get 404 UNREGISTERED from now on. */
  markDead(token: string): void {
    this.dead.add(token);
  }

  /** The next `count` sends are answered with this error, before any other check. */
  failNext(count: number, failure: FcmFailure): void {
    for (let i = 0; i < count; i++) this.sendFailures.push(failure);
  }

  /** The next `count` token requests are answered with this error (default body: OAuth `{error}`). */
  failTokenNext(count: number, failure: FcmFailure): void {
    for (let i = 0; i < count; i++) this.tokenFailures.push(failure);
  }

  /** Every access token issued so far stops working (as if revoked, or expired early). */
  expireTokens(): void {
    for (const token of this.accessTokens.values()) token.expiresAt = 0;
  }

  /** The `expires_in` of tokens issued from now on (Google's: 3599). */
  setTokenLifetime(seconds: number): void {
    this.tokenLifetimeSeconds = seconds;
  }

  /** true: 503 UNAVAILABLE on both endpoints; 'reset': connections dropped without an answer. */
  setDown(down: boolean | 'reset'): void {
    this.down = down;
  }

  setDelay(delays: { send?: number; token?: number }): void {
    this.delays = { send: delays.send ?? 0, token: delays.token ?? 0 };
  }

  /** What the Android device with this token shows, oldest first; see the class comment. */
  shown(token: string): FcmShown[] {
    const tray: FcmShown[] = [];
    for (const entry of this.received) {
      const message = entry.message as FcmMessageLike;
      if (entry.token !== token || !message.notification) continue;
      const tag = message.android?.notification?.tag ?? entry.collapseKey;
      const at = tag === undefined ? -1 : tray.findIndex((shownEntry) => shownEntry.tag === tag);
      if (at >= 0) tray.splice(at, 1);
      tray.push({
        title: message.notification.title ?? null,
        body: message.notification.body ?? '',
        tag,
        badge: message.android?.notification?.notification_count,
        channelId: message.android?.notification?.channel_id,
        data: message.data ?? {},
      });
    }
    return tray;
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '/').split('?')[0];
      const endpoint = path === '/token' ? 'token' : 'send';
      if (this.down === 'reset') {
        req.socket.destroy();
        return;
      }
      const answer = (status: number, json: unknown, headers: Record<string, string> = {}): void => {
        const respond = (): void => {
          this.answered.push({ endpoint, status });
          const text = JSON.stringify(json);
          res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
          res.end(text);
        };
        const delay = this.delays[endpoint];
        if (delay <= 0) return respond();
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          respond();
        }, delay);
        this.timers.add(timer);
      };
      if (req.method !== 'POST') return answer(405, googleError(405, 'METHOD_NOT_ALLOWED', 'Method not allowed.'));
      if (this.down) {
        return endpoint === 'token'
          ? answer(503, { error: 'temporarily_unavailable', error_description: 'Service unavailable.' })
          : answer(503, googleError(503, 'UNAVAILABLE', 'The service is currently unavailable.'));
      }
      if (endpoint === 'token') this.handleToken(req, body, answer);
      else this.handleSend(req, path, body, answer);
    });
  }

  private handleToken(req: IncomingMessage, body: string, answer: Answer): void {
    const failure = this.tokenFailures.shift();
    if (failure) {
      return answer(
        failure.status,
        failure.body ?? {
          error: failure.status >= 500 ? 'internal_failure' : 'invalid_grant',
          error_description: failure.message ?? 'Injected failure.',
        },
        retryHeader(failure),
      );
    }
    if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      return answer(400, {
        error: 'invalid_request',
        error_description: 'Content-Type must be application/x-www-form-urlencoded.',
      });
    }
    const form = new URLSearchParams(body);
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      return answer(400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type.' });
    }
    const invalid = (description: string): void =>
      answer(400, { error: 'invalid_grant', error_description: description });
    const parts = (form.get('assertion') ?? '').split('.');
    if (parts.length !== 3) return invalid('Invalid JWT: not a JWS.');
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as Record<string, unknown>;
      claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      return invalid('Invalid JWT: cannot decode.');
    }
    if (header.alg !== 'RS256') return invalid('Invalid JWT: alg must be RS256.');
    const account = typeof claims.iss === 'string' ? this.accounts.get(claims.iss) : undefined;
    if (!account) return invalid('Invalid grant: account not found');
    if (header.kid !== undefined && header.kid !== account.keyId) return invalid('Invalid JWT Signature.');
    const signed = verify(
      'sha256',
      Buffer.from(`${parts[0]}.${parts[1]}`),
      account.key,
      Buffer.from(parts[2], 'base64url'),
    );
    if (!signed) return invalid('Invalid JWT Signature.');
    if (claims.aud !== this.tokenUri) return invalid('Invalid JWT: Failed audience check.');
    const now = Math.floor(Date.now() / 1000);
    const { iat, exp } = claims;
    if (
      typeof iat !== 'number' ||
      typeof exp !== 'number' ||
      exp <= iat ||
      exp - iat > 3600 ||
      iat > now + 60 ||
      exp < now
    ) {
      return invalid(
        'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
      );
    }
    const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ') : [];
    if (!scopes.includes('https://www.googleapis.com/auth/firebase.messaging')) {
      return answer(400, {
        error: 'invalid_scope',
        error_description: 'Invalid OAuth scope or ID token audience provided.',
      });
    }
    const accessToken = `ya29.fake-${randomBytes(32).toString('base64url')}`;
    this.accessTokens.set(accessToken, {
      projectId: account.projectId,
      expiresAt: Date.now() + this.tokenLifetimeSeconds * 1000,
    });
    this.tokensIssued++;
    answer(200, { access_token: accessToken, expires_in: this.tokenLifetimeSeconds, token_type: 'Bearer' });
  }

  private handleSend(req: IncomingMessage, path: string, body: string, answer: Answer): void {
    const route = /^\/v1\/projects\/([^/]+)\/messages:send$/.exec(path);
    if (!route) return answer(404, googleError(404, 'NOT_FOUND', 'Not found.'));
    const failure = this.sendFailures.shift();
    if (failure) {
      return answer(
        failure.status,
        failure.body ??
          googleError(
            failure.status,
            statusName(failure.status),
            failure.message ?? 'Injected failure.',
            failure.errorCode,
          ),
        retryHeader(failure),
      );
    }
    const authorization = String(req.headers.authorization ?? '');
    const bearer = authorization.startsWith('Bearer ') ? authorization.slice(7) : '';
    const issued = this.accessTokens.get(bearer);
    if (!issued || issued.expiresAt <= Date.now()) {
      return answer(
        401,
        googleError(
          401,
          'UNAUTHENTICATED',
          'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.',
        ),
      );
    }
    const projectId = decodeURIComponent(route[1]);
    if (issued.projectId !== projectId) {
      return answer(
        403,
        googleError(
          403,
          'PERMISSION_DENIED',
          `Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/${projectId}' (or it may not exist).`,
        ),
      );
    }
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) {
      return answer(
        400,
        googleError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received. Content-Type must be application/json.'),
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return answer(400, googleError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received. Unexpected token.'));
    }
    const problem = checkSendBody(parsed);
    if (problem) return answer(400, googleError(400, 'INVALID_ARGUMENT', problem.message, problem.errorCode));
    const { message, validate_only: validateOnly } = parsed as { message: FcmMessageLike; validate_only?: boolean };
    const messageName = `projects/${projectId}/messages/0:${Date.now()}%${randomBytes(8).toString('hex')}`;
    if (message.token !== undefined && this.dead.has(message.token)) {
      return answer(404, googleError(404, 'NOT_FOUND', 'Requested entity was not found.', 'UNREGISTERED'));
    }
    if (validateOnly) return answer(200, { name: messageName });
    this.received.push({
      token: message.token ?? null,
      projectId,
      collapseKey: message.android?.collapse_key,
      priority: message.android?.priority,
      message,
      headers: req.headers,
      name: messageName,
    });
    answer(200, { name: messageName });
  }
}

export interface FakeServiceAccount {
  /** The key file's text (what FCM_SERVICE_ACCOUNT or FCM_SERVICE_ACCOUNT_FILE's file holds). */
  json: string;
  key: Record<string, string>;
  clientEmail: string;
  projectId: string;
  privateKeyPem: string;
  publicKeyPem: string;
}

/** An injected error. Sends: `body` defaults to Google's error body with `errorCode` in FcmError details. */
export interface FcmFailure {
  status: number;
  errorCode?: string;
  message?: string;
  retryAfterSeconds?: number;
  body?: unknown;
}

export interface FcmReceived {
  token: string | null;
  projectId: string;
  collapseKey: string | undefined;
  priority: string | undefined;
  /** The message as sent (the body's `message`). */
  message: unknown;
  headers: IncomingMessage['headers'];
  /** The name answered (projects/<id>/messages/<id>). */
  name: string;
}

export interface FcmShown {
  title: string | null;
  body: string;
  tag: string | undefined;
  badge: number | undefined;
  channelId: string | undefined;
  data: Record<string, string>;
}

type Answer = (status: number, json: unknown, headers?: Record<string, string>) => void;

interface FcmMessageLike {
  token?: string;
  notification?: { title?: string; body?: string };
  data?: Record<string, string>;
  android?: {
    priority?: string;
    collapse_key?: string;
    notification?: { tag?: string; notification_count?: number; channel_id?: string };
  };
}

const FCM_ERROR_TYPE = 'type.googleapis.com/google.firebase.fcm.v1.FcmError';

function googleError(code: number, status: string, message: string, errorCode?: string): unknown {
  return {
    error: {
      code,
      message,
      status,
      ...(errorCode ? { details: [{ '@type': FCM_ERROR_TYPE, errorCode }] } : {}),
    },
  };
}

function statusName(code: number): string {
  const names: Record<number, string> = {
    400: 'INVALID_ARGUMENT',
    401: 'UNAUTHENTICATED',
    403: 'PERMISSION_DENIED',
    404: 'NOT_FOUND',
    429: 'RESOURCE_EXHAUSTED',
    500: 'INTERNAL',
    503: 'UNAVAILABLE',
  };
  return names[code] ?? 'UNKNOWN';
}

function retryHeader(failure: FcmFailure): Record<string, string> {
  return failure.retryAfterSeconds === undefined ? {} : { 'retry-after': String(failure.retryAfterSeconds) };
}

const MESSAGE_FIELDS = new Set([
  'name',
  'data',
  'notification',
  'android',
  'webpush',
  'apns',
  'fcm_options',
  'token',
  'topic',
  'condition',
]);
const ANDROID_FIELDS = new Set([
  'collapse_key',
  'priority',
  'ttl',
  'restricted_package_name',
  'data',
  'notification',
  'fcm_options',
  'direct_boot_ok',
]);
const ANDROID_NOTIFICATION_FIELDS = new Set([
  'title',
  'body',
  'icon',
  'color',
  'sound',
  'tag',
  'click_action',
  'body_loc_key',
  'body_loc_args',
  'title_loc_key',
  'title_loc_args',
  'channel_id',
  'ticker',
  'sticky',
  'event_time',
  'local_only',
  'notification_priority',
  'default_sound',
  'default_vibrate_timings',
  'default_light_settings',
  'vibrate_timings',
  'visibility',
  'notification_count',
  'light_settings',
  'image',
]);
const RESERVED_DATA_KEYS = new Set(['from', 'notification', 'message_type']);

const invalidArgument = (message: string): { message: string; errorCode: string } => ({
  message,
  errorCode: 'INVALID_ARGUMENT',
});

/** FCM's checks on a send body; the first problem found, as FCM words it where it is known. */
function checkSendBody(parsed: unknown): { message: string; errorCode: string } | null {
  if (!isObject(parsed)) return invalidArgument('Invalid JSON payload received. Expected an object.');
  for (const key of Object.keys(parsed)) {
    if (key !== 'message' && key !== 'validate_only')
      return invalidArgument(`Invalid JSON payload received. Unknown name "${key}": Cannot find field.`);
  }
  const message = parsed.message;
  if (!isObject(message)) return invalidArgument('Request contains an invalid argument.');
  for (const key of Object.keys(message)) {
    if (!MESSAGE_FIELDS.has(key))
      return invalidArgument(`Invalid JSON payload received. Unknown name "${key}" at 'message': Cannot find field.`);
  }
  const targets = ['token', 'topic', 'condition'].filter((field) => message[field] !== undefined);
  if (targets.length !== 1) return invalidArgument('Request contains an invalid argument.');
  if (message.token !== undefined) {
    if (typeof message.token !== 'string' || !/^[A-Za-z0-9_:-]{32,4096}$/.test(message.token)) {
      return invalidArgument('The registration token is not a valid FCM registration token');
    }
  }
  if (message.data !== undefined) {
    if (!isObject(message.data)) return invalidArgument("Invalid value at 'message.data'.");
    for (const [key, value] of Object.entries(message.data)) {
      if (typeof value !== 'string')
        return invalidArgument(`Invalid value at 'message.data[${key}].value' (TYPE_STRING).`);
      if (RESERVED_DATA_KEYS.has(key) || key.startsWith('google.') || key.startsWith('gcm.')) {
        return invalidArgument(`Invalid data key: ${key} is reserved.`);
      }
    }
  }
  if (message.notification !== undefined) {
    if (!isObject(message.notification)) return invalidArgument("Invalid value at 'message.notification'.");
    for (const field of ['title', 'body', 'image']) {
      const value = message.notification[field];
      if (value !== undefined && typeof value !== 'string')
        return invalidArgument(`Invalid value at 'message.notification.${field}' (TYPE_STRING).`);
    }
  }
  const android = message.android;
  if (android !== undefined) {
    if (!isObject(android)) return invalidArgument("Invalid value at 'message.android'.");
    for (const key of Object.keys(android)) {
      if (!ANDROID_FIELDS.has(key))
        return invalidArgument(
          `Invalid JSON payload received. Unknown name "${key}" at 'message.android': Cannot find field.`,
        );
    }
    if (android.priority !== undefined && android.priority !== 'NORMAL' && android.priority !== 'HIGH') {
      return invalidArgument(
        `Invalid value at 'message.android.priority' (type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority), "${String(android.priority)}"`,
      );
    }
    if (android.ttl !== undefined && (typeof android.ttl !== 'string' || !/^\d+(\.\d{1,9})?s$/.test(android.ttl))) {
      return invalidArgument(
        "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), Illegal duration format.",
      );
    }
    if (android.collapse_key !== undefined && typeof android.collapse_key !== 'string') {
      return invalidArgument("Invalid value at 'message.android.collapse_key' (TYPE_STRING).");
    }
    const notification = android.notification;
    if (notification !== undefined) {
      if (!isObject(notification)) return invalidArgument("Invalid value at 'message.android.notification'.");
      for (const key of Object.keys(notification)) {
        if (!ANDROID_NOTIFICATION_FIELDS.has(key)) {
          return invalidArgument(
            `Invalid JSON payload received. Unknown name "${key}" at 'message.android.notification': Cannot find field.`,
          );
        }
      }
      const count = notification.notification_count;
      if (count !== undefined && (typeof count !== 'number' || !Number.isInteger(count) || count < 0)) {
        return invalidArgument("Invalid value at 'message.android.notification.notification_count' (TYPE_INT32).");
      }
    }
  }
  const apns = message.apns;
  if (apns !== undefined) {
    if (!isObject(apns)) return invalidArgument("Invalid value at 'message.apns'.");
    if (apns.headers !== undefined) {
      if (!isObject(apns.headers)) return invalidArgument("Invalid value at 'message.apns.headers'.");
      for (const [key, value] of Object.entries(apns.headers)) {
        if (typeof value !== 'string')
          return invalidArgument(`Invalid value at 'message.apns.headers[${key}].value' (TYPE_STRING).`);
      }
      const headers = apns.headers as Record<string, string>;
      if (headers['apns-priority'] !== undefined && !['5', '10'].includes(headers['apns-priority']))
        return invalidArgument('Invalid APNs priority.');
      if (headers['apns-collapse-id'] !== undefined && Buffer.byteLength(headers['apns-collapse-id']) > 64) {
        return invalidArgument('apns-collapse-id longer than 64 bytes.');
      }
      if (headers['apns-expiration'] !== undefined && !/^\d+$/.test(headers['apns-expiration']))
        return invalidArgument('Invalid apns-expiration.');
    }
    if (apns.payload !== undefined && (!isObject(apns.payload) || !isObject(apns.payload.aps))) {
      return invalidArgument("Invalid value at 'message.apns.payload': aps must be an object.");
    }
  }
  const { token: _token, topic: _topic, condition: _condition, ...payload } = message;
  if (Buffer.byteLength(JSON.stringify(payload), 'utf8') > 4096)
    return invalidArgument('Message is too big. Maximum payload size is 4096 bytes.');
  return null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
