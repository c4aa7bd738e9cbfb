import * as https from 'node:https';
import * as tls from 'node:tls';

/** A vendor's raw answer: status, headers and the body as text (capped). */
export interface VendorHttpsResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Why a request got no answer. Secret-free: the message never carries the URL's query or a header. */
export class VendorHttpsError extends Error {
  constructor(
    readonly kind: 'timeout' | 'network',
    message: string,
  ) {
    super(message);
  }
}

// A vendor's answer is a few hundred bytes; anything past this is not worth buffering.
const MAX_BODY_BYTES = 64 * 1024;

/**
 * Keep-alive HTTPS POSTs for the REST push vendors (Huawei, Xiaomi). One per adapter so `close()`
 * frees exactly that adapter's sockets. `extraCaPem` is trusted in addition to the public roots
 * (a proxy's or a test fake's certificate), not instead of them.
 */
export class VendorHttpsClient {
  private readonly agent: https.Agent;
  private readonly timeoutMs: number;

  /** `maxSockets`: the provider's concurrency and one for its access-token requests (default 16). */
  constructor(options: { extraCaPem: string | null; timeoutMs: number; maxSockets?: number }) {
    this.timeoutMs = options.timeoutMs;
    this.agent = new https.Agent({
      keepAlive: true,
      maxSockets: options.maxSockets ?? 16,
      // A secure context built once: a `ca` list would be joined into the pool's key on every request.
      ...(options.extraCaPem
        ? { secureContext: tls.createSecureContext({ ca: [...tls.rootCertificates, options.extraCaPem] }) }
        : {}),
    });
  }

  post(url: string, headers: Record<string, string>, body: string): Promise<VendorHttpsResponse> {
    return new Promise((resolve, reject) => {
      const payload = Buffer.from(body, 'utf8');
      let settled = false;
      const finish = (error: VendorHttpsError | null, response?: VendorHttpsResponse): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(response as VendorHttpsResponse);
      };
      const request = https.request(
        url,
        {
          method: 'POST',
          agent: this.agent,
          headers: { ...headers, 'content-length': String(payload.length) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size <= MAX_BODY_BYTES) chunks.push(chunk);
          });
          res.on('end', () =>
            finish(null, {
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          res.on('error', (error) => finish(new VendorHttpsError('network', `response failed: ${error.message}`)));
        },
      );
      // The whole exchange is bounded, not just socket idleness: a vendor trickling bytes must not hold a send.
      const timer = setTimeout(() => {
        finish(new VendorHttpsError('timeout', `no answer within ${this.timeoutMs} ms`));
        request.destroy();
      }, this.timeoutMs);
      request.on('error', (error: NodeJS.ErrnoException) =>
        finish(new VendorHttpsError('network', `request failed: ${error.code ?? error.message}`)),
      );
      request.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

export { checkHttpsUrl, readCaFile } from '../../config/push/provider-settings';
export { retryAfterMs } from './provider-answers';
