import type { UploadOptions } from './api/transport.js';
import { AuthSession } from './auth-session.js';
import type { UploadRequest, UploadResponse } from './environment.js';
import { TOO_FAST_RETRIES, tooFastDelay } from './backoff.js';
import { AUTH_CODES, ErrorCode, ImError, kindOf } from './errors.js';
import {
  UploadSender,
  abortable,
  abortableSleep,
  abortedError,
  fetchUpload,
  xhrConstructor,
  xhrUpload,
} from './upload.js';

export type Query = Record<string, string | number | undefined>;

interface Envelope {
  code: number;
  msg: string;
  data: unknown;
}

/** One attempt of a request with `token`: the HTTP status and the envelope it answered. */
type Attempt = (token: string) => Promise<{ status: number; envelope: Envelope }>;

/**
 * HTTP calls with the IM token. An authorization refusal renews the credential once and
 * retries; 1005 waits with bounded backoff; a reply that arrives after logout or a switch is
 * dropped (it belongs to an earlier login). Errors are typed by code, never by message.
 */
export class HttpClient {
  constructor(
    private readonly baseUrl: string,
    private readonly session: AuthSession,
    private readonly fetchImpl: typeof fetch,
    private readonly options: { upload?: (request: UploadRequest) => Promise<UploadResponse> } = {},
  ) {}

  get<T>(path: string, query: Query = {}): Promise<T> {
    return this.call<T>((token) => this.send('GET', path, query, undefined, token));
  }

  post<T>(path: string, body: unknown = {}): Promise<T> {
    return this.call<T>((token) => this.send('POST', path, {}, body, token));
  }

  /**
   * A multipart upload (`/app/sdk/media/upload`), with the same renewal, backoff and login
   * checks. Progress comes from the environment's `upload`, else XMLHttpRequest (browsers),
   * else fetch (start and end only); a renewal or a 1005 retry sends the body again, so progress
   * starts over. `signal` aborts at any point, waits included: the upload then rejects with kind
   * `aborted`.
   */
  upload<T>(path: string, form: FormData, options: UploadOptions = {}): Promise<T> {
    const Xhr = xhrConstructor();
    const sender: UploadSender = this.options.upload ?? (Xhr ? xhrUpload(Xhr) : fetchUpload(this.fetchImpl));
    const url = new URL(path, this.baseUrl).toString();
    return this.call<T>(async (token) => {
      const request: UploadRequest = {
        url,
        headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
        body: form,
        signal: options.signal,
        onProgress: options.onProgress,
      };
      let response: UploadResponse;
      try {
        response = await abortable(sender(request), options.signal);
      } catch (error) {
        if (error instanceof ImError) throw error;
        if (options.signal?.aborted || (error as { name?: unknown } | null)?.name === 'AbortError')
          throw abortedError();
        throw new ImError(
          'network',
          ErrorCode.NETWORK,
          `the service could not be reached: ${(error as Error)?.message ?? String(error)}`,
        );
      }
      const ok = response.status >= 200 && response.status < 300;
      return readEnvelope(response.status, ok, async () => JSON.parse(response.text) as unknown);
    }, options.signal);
  }

  /** Bytes behind the IM token (`/app/sdk/media/{id}`): an `<img>` cannot send the token itself. */
  async download(path: string): Promise<Blob> {
    const generation = this.session.generation;
    let token = await this.session.token();
    for (let renewed = false; ; renewed = true) {
      let response: Response;
      try {
        response = await this.fetchImpl(new URL(path, this.baseUrl), { headers: { Authorization: `Bearer ${token}` } });
      } catch (error) {
        throw new ImError(
          'network',
          ErrorCode.NETWORK,
          `the service could not be reached: ${(error as Error).message}`,
        );
      }
      if (generation !== this.session.generation)
        throw new ImError('stale', 0, 'the login changed during the download');
      const type = response.headers.get('content-type') ?? '';
      if (response.ok && !type.startsWith('application/json')) return response.blob();
      // Refusals come as the JSON envelope.
      const envelope = (await response.json().catch(() => null)) as { code?: number; msg?: string } | null;
      const code = typeof envelope?.code === 'number' ? envelope.code : 0;
      if (AUTH_CODES.includes(code) && !renewed) {
        token = await this.session.renewAfterRefusal(token);
        continue;
      }
      throw new ImError(
        kindOf(code, response.status),
        code,
        envelope?.msg ?? `HTTP ${response.status}`,
        response.status,
      );
    }
  }

  /**
   * Runs `send` until it answers: an authorization refusal renews once, 1005 waits and retries
   * (bounded), an earlier login's reply is dropped. `signal` (uploads) ends it as `aborted`.
   */
  private async call<T>(send: Attempt, signal?: AbortSignal): Promise<T> {
    const generation = this.session.generation;
    let token = await abortable(this.session.token(), signal);
    let renewed = false;
    for (let attempt = 0; ; attempt += 1) {
      if (signal?.aborted) throw abortedError();
      const { status, envelope } = await send(token);
      // 4.7 rule 6: an earlier login's reply is never applied.
      if (generation !== this.session.generation)
        throw new ImError('stale', envelope.code, 'the login changed while the request was in flight', status);
      if (envelope.code === 0) return envelope.data as T;
      if (AUTH_CODES.includes(envelope.code) && !renewed) {
        renewed = true;
        token = await abortable(this.session.renewAfterRefusal(token), signal);
        continue;
      }
      if (envelope.code === ErrorCode.TOO_FAST && attempt < TOO_FAST_RETRIES) {
        await abortableSleep(tooFastDelay(attempt), signal);
        if (generation !== this.session.generation) throw new ImError('stale', 0, 'the login changed while waiting');
        continue;
      }
      throw new ImError(kindOf(envelope.code, status), envelope.code, envelope.msg, status);
    }
  }

  private async send(
    method: 'GET' | 'POST',
    path: string,
    query: Query,
    body: unknown,
    token: string,
  ): Promise<{ status: number; envelope: Envelope }> {
    const url = new URL(path, this.baseUrl);
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) url.searchParams.set(name, String(value));
    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        method,
        headers: {
          Authorization: `Bearer ${token}`,
          Accept: 'application/json',
          // A FormData body sets its own multipart Content-Type with the boundary.
          ...(method === 'POST' && !isForm(body) ? { 'Content-Type': 'application/json' } : {}),
        },
        body: method === 'POST' ? (isForm(body) ? body : JSON.stringify(body)) : undefined,
      });
    } catch (error) {
      throw new ImError('network', ErrorCode.NETWORK, `the service could not be reached: ${(error as Error).message}`);
    }
    return readEnvelope(response.status, response.ok, () => response.json() as Promise<unknown>);
  }
}

/** The `{code,msg,data}` envelope of a reply, or the typed error of a reply that has none. */
async function readEnvelope(
  status: number,
  ok: boolean,
  parse: () => Promise<unknown>,
): Promise<{ status: number; envelope: Envelope }> {
  let envelope: unknown;
  try {
    envelope = await parse();
  } catch {
    throw new ImError(status >= 500 ? 'server' : 'network', 0, `HTTP ${status} without a JSON reply`, status);
  }
  const e = envelope as Partial<Envelope> | null;
  if (!e || typeof e.code !== 'number')
    throw new ImError('server', 0, `HTTP ${status} without the {code,msg,data} envelope`, status);
  // Spec 7: a non-zero code is never a success, whatever the HTTP status.
  if (e.code === 0 && !ok) throw new ImError('server', 0, `HTTP ${status} with code 0`, status);
  return { status, envelope: { code: e.code, msg: String(e.msg ?? ''), data: e.data ?? null } };
}

function isForm(body: unknown): body is FormData {
  return typeof FormData !== 'undefined' && body instanceof FormData;
}
