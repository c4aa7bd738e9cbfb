import * as http from 'node:http';
import * as https from 'node:https';

/** What one POST came to; `error` never holds a secret, a body or the URL (which may carry a token). */
export interface SendOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
}

const MAX_ERROR = 300;

/**
 * POSTs deliveries over keep-alive connections (one pool per instance and protocol), with one
 * deadline over the whole exchange. Any 2xx is success; redirects are not followed (a 3xx is a
 * failure: the operator should configure the final URL). The response body is read and dropped.
 */
export class WebhookSender {
  private readonly httpAgent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 8 });

  constructor(private readonly timeoutMs: number) {}

  send(url: string, body: string, headers: Record<string, string>): Promise<SendOutcome> {
    const started = Date.now();
    return new Promise<SendOutcome>((resolve) => {
      let settled = false;
      const finish = (outcome: Omit<SendOutcome, 'latencyMs'>): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ ...outcome, error: outcome.error?.slice(0, MAX_ERROR) ?? null, latencyMs: Date.now() - started });
      };
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        finish({ ok: false, statusCode: null, error: 'invalid URL' });
        return;
      }
      const secure = target.protocol === 'https:';
      const request = (secure ? https : http).request(
        target,
        {
          method: 'POST',
          agent: secure ? this.httpsAgent : this.httpAgent,
          headers: {
            ...headers,
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            'user-agent': 'im-webhooks/1',
          },
        },
        (response) => {
          const statusCode = response.statusCode ?? 0;
          response.on('data', () => undefined);
          response.on('end', () =>
            finish({
              ok: statusCode >= 200 && statusCode < 300,
              statusCode,
              error: statusCode >= 200 && statusCode < 300 ? null : `HTTP ${statusCode}`,
            }),
          );
          response.on('error', (error: NodeJS.ErrnoException) =>
            finish({ ok: false, statusCode, error: `response: ${error.code ?? error.message}` }),
          );
        },
      );
      const timer = setTimeout(() => {
        finish({ ok: false, statusCode: null, error: `timeout after ${this.timeoutMs} ms` });
        request.destroy();
      }, this.timeoutMs);
      request.on('error', (error: NodeJS.ErrnoException) =>
        finish({ ok: false, statusCode: null, error: `network: ${error.code ?? error.message}` }),
      );
      request.end(body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
