import { Server, createServer } from 'node:http';
import { failure, success } from '../envelope';
import { ErrorCode } from '../error-code';

/**
 * Answers on the service's port while the application cannot start yet (the database is not
 * reachable): liveness says the process is up, readiness and every other request say 503, so
 * an orchestrator neither restarts the process nor sends it traffic.
 */
export function startStandbyServer(port: number, reason: string): Promise<Server> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0].replace(/\/+$/, '').toLowerCase();
    const [status, body] = path === '/health' ? [200, success({ status: 'ok' })] : [503, failure(ErrorCode.INTERNAL, `not ready: ${reason}`)];
    const text = JSON.stringify(body);
    response.writeHead(status, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(text),
      'Cache-Control': 'no-store',
      ...(status === 503 ? { 'Retry-After': '5' } : {}),
    });
    response.end(text);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve(server));
  });
}

export function stopStandbyServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
