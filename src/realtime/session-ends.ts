import type { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import type { AccessChange } from '../users/user-access-events';
import { disabledMessage, isDisabledAt } from '../users/user';
import { UsersService } from '../users/users.service';
import type { DeliveryHub } from './delivery-hub';
import { emitEphemeral, ephemeral, userRoom } from './realtime-events';
import type { ImServer, SocketSession } from './socket-session';

/**
 * How live connections end before their client closes them: at the token's expiry
 * (`session.expired`), and when access is withdrawn (`session.revoked`: the user disabled, their
 * tokens revoked, the SDK switched off). Each end tells the client why, then disconnects.
 */
export class SessionEnds {
  private sweeping = false;

  constructor(
    private readonly hub: DeliveryHub,
    private readonly users: UsersService,
    private readonly clock: Clock,
    private readonly server: () => ImServer | null,
  ) {}

  /**
   * Ends the connections whose token has expired (checked every second: one walk over the
   * sessions costs less than a timer per connection, about 0.2 KB each at rest).
   */
  expire(): void {
    const now = this.clock.now();
    for (const userId of this.hub.users()) {
      for (const session of [...this.hub.sessionsOf(userId)]) {
        if (session.expireAt * 1000 <= now) this.end(session, 'session.expired', ErrorCode.TOKEN_EXPIRED);
      }
    }
  }

  /** Access changed on this instance: every instance's sockets of the user end now (the adapter carries it). */
  revoke(userId: string, change: AccessChange, msg?: string): void {
    const data =
      change === 'disabled'
        ? { code: ErrorCode.USER_DISABLED, msg: msg ?? disabledMessage({ disabledReason: null }) }
        : { code: ErrorCode.TOKEN_INVALID };
    const server = this.server();
    if (!server) return;
    server.to(userRoom(userId)).emit('session.revoked', ephemeral('session.revoked', data, this.clock.now()));
    server.in(userRoom(userId)).disconnectSockets(true);
  }

  /** Every connection of this instance (each instance sees a settings change at its own refresh). */
  endAll(code: ErrorCode): void {
    for (const id of this.hub.users())
      for (const session of [...this.hub.sessionsOf(id)]) this.end(session, 'session.revoked', code);
  }

  /**
   * The safety net for revocation: every AUTH_CACHE_MS (at least a second) the state of every
   * connected user is read again, and a socket whose token version is no longer current or whose
   * user was disabled is ended, also when the notice from the instance that made the change was lost.
   */
  async sweep(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const ids = this.hub.users();
      if (ids.length === 0) return;
      const states = await this.users.findAuthStates(ids);
      for (const id of ids) {
        const state = states.get(id);
        for (const session of [...this.hub.sessionsOf(id)]) {
          if (!state || state.tokenVersion !== session.tokenVersion)
            this.end(session, 'session.revoked', ErrorCode.TOKEN_INVALID);
          else if (isDisabledAt(state, this.clock.now()))
            this.end(session, 'session.revoked', ErrorCode.USER_DISABLED, disabledMessage(state));
        }
      }
    } catch {
      // Checked again at the next round.
    } finally {
      this.sweeping = false;
    }
  }

  private end(session: SocketSession, type: 'session.expired' | 'session.revoked', code: number, msg?: string): void {
    if (session.closed) return;
    session.closed = true;
    emitEphemeral(session.socket, ephemeral(type, msg === undefined ? { code } : { code, msg }, this.clock.now()));
    session.socket.disconnect(true);
  }
}
