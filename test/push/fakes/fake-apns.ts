/**
 * A fake Apple Push Notification service: HTTP/2 over TLS on 127.0.0.1, a random port.
 *
 *   const apns = await FakeApns.start({ publicKey, keyId, teamId, topic });
 *   // point the adapter at apns.url and trust apns.caPem (APNS_URL, APNS_CA_FILE)
 *   apns.received      // accepted notifications, oldest first
 *   apns.shown(token)  // what the device shows: a later alert with the same collapse ID replaces the earlier
 *   apns.requests      // every request with the status it got (accepted or not)
 *   apns.connections   // HTTP/2 connections open now
 *   apns.addDeadToken(token) · apns.failNext(n, { status, reason }) · apns.setDown(true) · apns.setDelay(ms)
 *   apns.goAway()      // ends the connections as APNs does on shutdown
 *   await apns.close()
 *
 * It speaks Apple's protocol and checks what it receives the way APNs does (as documented in
 * "Sending notification requests to APNs" and "Handling notification responses from APNs"):
 * POST /3/device/<hex token>; a bearer ES256 provider token signed by the key it was given, with
 * the key's `kid`, the team as `iss`, and an `iat` under an hour old (403 InvalidProviderToken /
 * ExpiredProviderToken / MissingProviderToken); `apns-topic` the bundle ID, or `<bundle ID>.voip`
 * exactly when `apns-push-type` is voip (400 BadTopic / InvalidPushType); priority 10, 5 or 1;
 * an integer expiration; a collapse ID of at most 64 bytes (400 BadCollapseId); a JSON object of
 * at most 4096 bytes, 5120 for VoIP (413 PayloadTooLarge), with `aps.alert` for an alert push.
 * Errors are `{"reason": "..."}` with an `apns-id` header; a dead token gets 410
 * `{"reason":"Unregistered","timestamp":<ms>}`. Its own invention where Apple documents nothing:
 * a body that is not a JSON object is 400 PayloadEmpty.
 */
import { createPublicKey, KeyObject, randomUUID, verify } from 'node:crypto';
import { AddressInfo } from 'node:net';
import {
  constants,
  createSecureServer,
  Http2SecureServer,
  IncomingHttpHeaders,
  ServerHttp2Session,
  ServerHttp2Stream,
} from 'node:http2';
import { localhostCertificate } from './localhost-certificate';

export interface FakeApnsOptions {
  /** The public half of the .p8 key the adapter signs with (PEM or KeyObject). */
  publicKey: string | KeyObject;
  keyId: string;
  teamId: string;
  /** The app's bundle ID. */
  topic: string;
  /** Unix ms, for judging a token's age; defaults to the real clock. */
  now?: () => number;
}

export interface FakeApnsNotification {
  token: string;
  topic: string;
  pushType: string;
  priority: number;
  /** `apns-collapse-id`, or null. */
  collapseKey: string | null;
  /** `apns-expiration` (Unix seconds), or null. */
  expiration: number | null;
  payload: Record<string, unknown>;
  headers: IncomingHttpHeaders;
  /** The `apns-id` answered. */
  apnsId: string;
}

export interface FakeApnsRequest {
  token: string;
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
  reason: string | null;
}

export interface FakeApnsFailure {
  status: number;
  /** Apple's reason word, e.g. TooManyRequests; the body is `{"reason": reason}` (omitted: empty body). */
  reason?: string;
  /** A body sent as is instead, e.g. one that is not Apple's JSON. */
  body?: string;
  headers?: Record<string, string>;
}

const MAX_PAYLOAD = 4096;
const MAX_VOIP_PAYLOAD = 5120;
const TOKEN_MAX_AGE_S = 3600;

export class FakeApns {
  readonly received: FakeApnsNotification[] = [];
  readonly requests: FakeApnsRequest[] = [];
  private readonly deadTokens = new Set<string>();
  private readonly failures: FakeApnsFailure[] = [];
  private readonly sessions = new Set<ServerHttp2Session>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly publicKey: KeyObject;
  private readonly now: () => number;
  private down: false | 'unavailable' | 'refuse' = false;
  private delayMs = 0;
  private port = 0;

  private constructor(
    private readonly server: Http2SecureServer,
    private readonly options: FakeApnsOptions,
    /** The self-signed certificate the fake serves: the CA the adapter must trust. */
    readonly caPem: string,
  ) {
    const key = options.publicKey;
    this.publicKey = typeof key !== 'string' && key.type === 'public' ? key : createPublicKey(key);
    this.now = options.now ?? Date.now;
  }

  static async start(options: FakeApnsOptions): Promise<FakeApns> {
    const pems = await localhostCertificate();
    const server = createSecureServer({ key: pems.private, cert: pems.cert, allowHTTP1: false });
    const fake = new FakeApns(server, options, pems.cert);
    server.on('session', (session: ServerHttp2Session) => {
      fake.sessions.add(session);
      session.on('close', () => fake.sessions.delete(session));
      session.on('error', () => undefined);
    });
    server.on('stream', (stream, headers) => fake.onStream(stream, headers));
    await fake.listen(0);
    return fake;
  }

  get url(): string {
    return `https://127.0.0.1:${this.port}`;
  }

  /** HTTP/2 connections open now (a client holds one; APNs asks for exactly that). */
  get connections(): number {
    return this.sessions.size;
  }

  /** From now on this token is answered 410 Unregistered (the app was removed from the device). */
  addDeadToken(token: string): void {
    this.deadTokens.add(token);
  }

  /** The next `count` requests get this answer (after the TLS and HTTP/2 layers, before any check). */
  failNext(count: number, failure: FakeApnsFailure): void {
    for (let i = 0; i < count; i++) this.failures.push(failure);
  }

  /**
   * Down: 'unavailable' answers 503 ServiceUnavailable; 'refuse' stops listening and drops every
   * connection (connection refused). Up again: listening on the same port.
   */
  async setDown(down: boolean, how: 'unavailable' | 'refuse' = 'unavailable'): Promise<void> {
    const wasRefusing = this.down === 'refuse';
    this.down = down ? how : false;
    if (down && how === 'refuse' && !wasRefusing) {
      for (const session of this.sessions) session.destroy();
      await new Promise<void>((resolve) => this.server.close(() => resolve()));
    } else if (wasRefusing && this.down !== 'refuse') {
      await this.listen(this.port);
    }
  }

  /** Ends every connection with a GOAWAY, as APNs does on shutdown or a long-idle connection. */
  goAway(): void {
    for (const session of this.sessions) {
      session.goaway(constants.NGHTTP2_NO_ERROR);
      session.close();
    }
  }

  /** Every answer waits this long first. */
  setDelay(ms: number): void {
    this.delayMs = ms;
  }

  /** The device's notification list: alerts only (VoIP pushes go to the app), a collapse ID replacing its predecessor. */
  shown(token: string): FakeApnsNotification[] {
    const list: FakeApnsNotification[] = [];
    for (const notification of this.received) {
      if (notification.token !== token || notification.pushType !== 'alert') continue;
      const earlier =
        notification.collapseKey === null ? -1 : list.findIndex((n) => n.collapseKey === notification.collapseKey);
      if (earlier >= 0) list.splice(earlier, 1);
      list.push(notification);
    }
    return list;
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const session of this.sessions) session.destroy();
    if (this.server.listening) await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        this.port = (this.server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  private onStream(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
    stream.on('error', () => undefined);
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const answer = (): void => this.answer(stream, headers, body);
      if (this.delayMs <= 0) return answer();
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        answer();
      }, this.delayMs);
      this.timers.add(timer);
    });
  }

  private answer(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, body: string): void {
    if (stream.destroyed || stream.closed) return;
    const path = String(headers[':path'] ?? '');
    const token = path.startsWith('/3/device/') ? path.slice('/3/device/'.length) : '';
    const apnsId = typeof headers['apns-id'] === 'string' ? headers['apns-id'] : randomUUID();
    const respond = (status: number, reason: string | null, extra: Record<string, unknown> = {}): void => {
      this.requests.push({ token, headers, body, status, reason });
      stream.respond({ ':status': status, 'apns-id': apnsId });
      stream.end(reason === null ? undefined : JSON.stringify({ reason, ...extra }));
    };

    const failure = this.failures.shift();
    if (failure) {
      this.requests.push({ token, headers, body, status: failure.status, reason: failure.reason ?? null });
      stream.respond({ ':status': failure.status, 'apns-id': apnsId, ...failure.headers });
      const answer =
        failure.body ?? (failure.reason === undefined ? undefined : JSON.stringify({ reason: failure.reason }));
      return void stream.end(answer);
    }
    if (this.down === 'unavailable') return respond(503, 'ServiceUnavailable');

    if (headers[':method'] !== 'POST') return respond(405, 'MethodNotAllowed');
    if (!path.startsWith('/3/device/')) return respond(404, 'BadPath');
    if (token === '') return respond(400, 'MissingDeviceToken');
    if (!/^[0-9a-fA-F]+$/.test(token)) return respond(400, 'BadDeviceToken');

    const authProblem = this.checkToken(headers.authorization);
    if (authProblem !== null) return respond(403, authProblem);

    const topic = headers['apns-topic'];
    const pushType = headers['apns-push-type'];
    if (typeof topic !== 'string' || topic === '') return respond(400, 'MissingTopic');
    if (topic !== this.options.topic && topic !== `${this.options.topic}.voip`) return respond(400, 'BadTopic');
    if (pushType !== 'alert' && pushType !== 'voip') return respond(400, 'InvalidPushType');
    if ((pushType === 'voip') !== topic.endsWith('.voip')) return respond(400, 'InvalidPushType');

    const priority = headers['apns-priority'] === undefined ? 10 : Number(headers['apns-priority']);
    if (![10, 5, 1].includes(priority)) return respond(400, 'BadPriority');
    const expirationHeader = headers['apns-expiration'];
    if (expirationHeader !== undefined && !/^[0-9]+$/.test(String(expirationHeader)))
      return respond(400, 'BadExpirationDate');
    const collapse = headers['apns-collapse-id'];
    if (typeof collapse === 'string' && Buffer.byteLength(collapse) > 64) return respond(400, 'BadCollapseId');

    if (body === '') return respond(400, 'PayloadEmpty');
    if (Buffer.byteLength(body) > (pushType === 'voip' ? MAX_VOIP_PAYLOAD : MAX_PAYLOAD))
      return respond(413, 'PayloadTooLarge');
    let payload: unknown;
    try {
      payload = JSON.parse(body);
    } catch {
      return respond(400, 'PayloadEmpty');
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return respond(400, 'PayloadEmpty');
    const aps = (payload as { aps?: { alert?: unknown } }).aps;
    if (pushType === 'alert' && (typeof aps !== 'object' || aps === null || aps.alert === undefined))
      return respond(400, 'PayloadEmpty');

    if (this.deadTokens.has(token)) return respond(410, 'Unregistered', { timestamp: this.now() });

    this.received.push({
      token,
      topic,
      pushType,
      priority,
      collapseKey: typeof collapse === 'string' ? collapse : null,
      expiration: expirationHeader === undefined ? null : Number(expirationHeader),
      payload: payload as Record<string, unknown>,
      headers,
      apnsId,
    });
    respond(200, null);
  }

  /** Null when the provider token is good, else Apple's reason. */
  private checkToken(authorization: string | undefined): string | null {
    if (authorization === undefined || authorization === '') return 'MissingProviderToken';
    const match = /^bearer ([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(authorization);
    if (!match) return 'InvalidProviderToken';
    const [, header, claims, signature] = match;
    let parsedHeader: { alg?: unknown; kid?: unknown };
    let parsedClaims: { iss?: unknown; iat?: unknown };
    try {
      parsedHeader = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as typeof parsedHeader;
      parsedClaims = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as typeof parsedClaims;
    } catch {
      return 'InvalidProviderToken';
    }
    if (parsedHeader.alg !== 'ES256' || parsedHeader.kid !== this.options.keyId) return 'InvalidProviderToken';
    if (parsedClaims.iss !== this.options.teamId || typeof parsedClaims.iat !== 'number') return 'InvalidProviderToken';
    const valid = verify(
      'sha256',
      Buffer.from(`${header}.${claims}`),
      { key: this.publicKey, dsaEncoding: 'ieee-p1363' },
      Buffer.from(signature, 'base64url'),
    );
    if (!valid) return 'InvalidProviderToken';
    if (Math.floor(this.now() / 1000) - parsedClaims.iat > TOKEN_MAX_AGE_S) return 'ExpiredProviderToken';
    return null;
  }
}
