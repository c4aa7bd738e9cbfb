import type { ServerResponse } from 'node:http';

/** Why the HTTP server answered a connection itself, before or instead of the application. */
export type ServerReplyReason =
  'headers_timeout' | 'request_timeout' | 'headers_too_large' | 'uri_too_long' | 'malformed';

/** A reply the HTTP server wrote itself (malformed-request.ts): its status, envelope code and reason. */
export interface ServerReply {
  status: number;
  code: number;
  reason: ServerReplyReason;
}

/** A server reply to a request in flight, and its client's address taken while the socket was open. */
export interface InFlightServerReply extends ServerReply {
  remoteAddress: string | undefined;
}

/** Reported for a server reply no request of the application saw (headers incomplete or unreadable). */
export interface ServerReplyEvent extends ServerReply {
  traceId: string;
  /** The socket's peer: the headers that would name a client behind a proxy were never read. */
  remoteAddress: string | undefined;
}

export type ServerReplyReporter = (event: ServerReplyEvent) => void;

const SERVER_REPLY = Symbol('serverReply');

/**
 * Marks a request in flight that the server answered itself (its body did not arrive in time),
 * so that the request's own access line and metrics (request-context.ts) report that reply
 * rather than a client that went away.
 */
export function markServerReply(response: ServerResponse, reply: InFlightServerReply): void {
  (response as ServerResponse & { [SERVER_REPLY]?: InFlightServerReply })[SERVER_REPLY] = reply;
}

export function serverReplyOf(response: ServerResponse): InFlightServerReply | undefined {
  return (response as ServerResponse & { [SERVER_REPLY]?: InFlightServerReply })[SERVER_REPLY];
}
