import { Server, createServer } from 'node:http';
import type { HttpConfig } from '../../config/http-config';
import { randomUUID } from 'node:crypto';
import { failure, success } from '../envelope';
import { ErrorCode } from '../error-code';
import { answerMalformedRequests } from './malformed-request';
import { applyServerTimeouts } from './server-timeouts';

/**
 * Answers on the service's port from the first moment until the application takes over: while
 * it waits for the database and while it migrates. Liveness says the process is up, readiness
 * and every other request say 503, so an orchestrator neither restarts the process in the
 * middle of a long migration nor sends it traffic.
 */
export class StandbyServer {
  private readonly server: Server;
  private reason = 'starting';

  private constructor(http: HttpConfig) {
    this.server = createServer((request, response) => {
      const path = (request.url ?? '/').split('?')[0].replace(/\/+$/, '').toLowerCase();
      const [status, body] =
        path === '/health'
          ? [200, success({ status: 'ok' })]
          : [503, failure(ErrorCode.INTERNAL, `not ready: ${this.reason}`)];
      const text = JSON.stringify(body);
      response.writeHead(status, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': Buffer.byteLength(text),
        'Cache-Control': 'no-store',
        'X-Request-Id': randomUUID(),
        ...(status === 503 ? { 'Retry-After': '5' } : {}),
      });
      response.end(text);
    });
    answerMalformedRequests(this.server);
    applyServerTimeouts(this.server, http);
  }

  static start(port: number, http: HttpConfig): Promise<StandbyServer> {
    const standby = new StandbyServer(http);
    return new Promise((resolve, reject) => {
      standby.server.once('error', reject);
      standby.server.listen(port, () => resolve(standby));
    });
  }

  /** What readiness says it waits for. */
  waitingFor(reason: string): void {
    this.reason = reason;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
