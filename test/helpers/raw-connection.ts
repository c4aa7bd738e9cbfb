// Raw TCP connections to the app, for tests of what the HTTP server does below the application:
// timeouts, early replies, malformed requests. No helper here measures how long anything took.
import type { Server } from 'node:http';
import { AddressInfo, Socket, connect } from 'node:net';
import type { TestApp } from './test-app';

/** Far beyond every timeout these tests configure: a connection still open then was left open. */
export const PATIENCE_MS = 40_000;

export interface RawOutcome {
  /** Whether the server closed the connection before PATIENCE_MS. */
  closed: boolean;
  received: string;
}

/** Starts the app's HTTP server on a free loopback port and answers the port. */
export async function listenRaw(t: TestApp): Promise<number> {
  const server = t.app.getHttpServer() as Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** Opens a raw TCP connection, runs `talk` on it and collects what arrives until the server closes it. */
export function rawConnection(port: number, talk: (socket: Socket) => void = () => undefined): Promise<RawOutcome> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const giveUp = setTimeout(() => {
      socket.destroy();
      resolve({ closed: false, received });
    }, PATIENCE_MS);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // Writing the rest of a body to a connection the server closed.
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    socket.on('close', () => {
      clearTimeout(giveUp);
      resolve({ closed: true, received });
    });
    socket.on('connect', () => talk(socket));
  });
}

/** The JSON body of one raw HTTP reply. */
export function bodyOf(reply: string): unknown {
  const at = reply.indexOf('\r\n\r\n');
  return JSON.parse(reply.slice(at + 4));
}
