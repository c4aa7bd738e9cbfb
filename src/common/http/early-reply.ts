import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { LINGER_MS } from './malformed-request';

function declaresBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * A reply written before the request's body has arrived (a guard refusing an upload, a body
 * over the limit) closes the connection after it, with `Connection: close`: Node would
 * otherwise keep reading the rest of the body for the next request on the connection, and the
 * request timeout met meanwhile would answer a request already answered. Closing is what Node
 * does for a `Connection: close` reply, but at once; here the socket first keeps reading and
 * dropping what still arrives, for at most LINGER_MS, so that the client is not reset before it
 * has read the reply.
 */
export function closeAfterEarlyReplies(server: Server): void {
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    if (!declaresBody(request)) return;
    const writeHead = response.writeHead;
    response.writeHead = function (this: ServerResponse, ...args: unknown[]) {
      if (!request.complete && !this.headersSent) {
        this.setHeader('Connection', 'close');
        lingerOnClose(request.socket);
      }
      return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
    } as ServerResponse['writeHead'];
  });
}

/** Node ends a `Connection: close` reply's socket with destroySoon(); this one lingers first. */
function lingerOnClose(socket: Socket): void {
  socket.destroySoon = () => {
    socket.end();
    socket.resume();
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
}
