import type { Server, Socket } from 'socket.io';
import type { ClientToServerEvents, ServerToClientEvents } from '../contract/events';
import type { AuthUser } from '../common/auth-user';
import type { RecipientFrame } from './event-frame';
import type { ConnectionDevice } from './socket-device';

export type ImSocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
export type ImServer = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

/** What the handshake proved, kept on the socket. */
export interface SocketData {
  auth?: { user: AuthUser; expireAt: number; tokenVersion: number };
  /** The raw `auth.position` the client sent (validated later; anything else means no resume). */
  resumeFrom?: unknown;
  /** What the handshake read of the device (auth.device), the User-Agent and the address. */
  device?: ConnectionDevice;
  session?: SocketSession;
}

/**
 * One authenticated connection: who it is for, until when, and the highest position it was
 * given. Positions only go up, so an event at or below the cursor (a replayed one arriving
 * live too, or a batch read twice) is never emitted again: each event reaches each connection
 * once, in order.
 */
export class SocketSession {
  cursor = 0n;
  /** False while the backlog is replayed: live events wait in `pending` meanwhile (as this user's frames). */
  live = false;
  pending: RecipientFrame[] = [];
  /** Client messages in the current 10-second window (the per-socket limit). */
  windowStart = 0;
  windowCount = 0;
  closed = false;

  constructor(
    readonly socket: ImSocket,
    public user: AuthUser,
    public expireAt: number,
    public tokenVersion: number,
    /** For the operator's user page (the user census), nothing else. */
    readonly device: ConnectionDevice,
  ) {}
}
