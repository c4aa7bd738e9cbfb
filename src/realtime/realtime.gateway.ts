import { Logger } from '@nestjs/common';
import {
  ConnectedSocket,
  MessageBody,
  OnGatewayConnection,
  OnGatewayDisconnect,
  OnGatewayInit,
  SubscribeMessage,
  WebSocketGateway,
} from '@nestjs/websockets';
import { ActivityTracker } from '../analytics/activity-tracker.service';
import type { ClientAck } from '../contract/events';
import { PresenceService } from './presence.service';
import { RealtimeService } from './realtime.service';
import { SocketCensus } from './socket-census';
import type { ImServer, ImSocket } from './socket-session';
import { TypingService } from './typing.service';

/**
 * The real-time connection of the SDKs (server options: RealtimeIoAdapter). Authentication is
 * a socket.io middleware installed in afterInit: Nest guards do not run on connection. Each
 * client message was checked (rate, size, shape) before it reaches a handler here.
 */
@WebSocketGateway()
export class RealtimeGateway implements OnGatewayInit, OnGatewayConnection, OnGatewayDisconnect {
  private readonly logger = new Logger('RealtimeGateway');

  constructor(
    private readonly realtime: RealtimeService,
    private readonly typingService: TypingService,
    private readonly presence: PresenceService,
    private readonly census: SocketCensus,
    private readonly activity: ActivityTracker,
  ) {}

  afterInit(server: ImServer): void {
    this.realtime.bind(server);
    this.census.bind(
      server,
      () => this.realtime.localSockets,
      (userId) => [...this.realtime.hub.sessionsOf(userId)].map((session) => session.device),
    );
  }

  handleConnection(socket: ImSocket): void {
    this.realtime
      .connected(socket, (session) => {
        this.activity.seen(session.user.internalId);
        return this.presence.connected(session);
      })
      .catch((error: unknown) => this.logger.error(`connection setup failed: ${(error as Error).message}`));
  }

  handleDisconnect(socket: ImSocket): void {
    this.realtime.disconnected(socket, (session) => this.presence.disconnected(session));
  }

  @SubscribeMessage('auth.renew')
  renew(@ConnectedSocket() socket: ImSocket, @MessageBody() body: { token: string }): Promise<ClientAck> {
    return this.realtime.renew(socket, body.token);
  }

  @SubscribeMessage('conversation.typing')
  typing(@ConnectedSocket() socket: ImSocket, @MessageBody() body: { conversation_id: string }): Promise<ClientAck> {
    return this.typingService.typing(socket.data.session!, body.conversation_id);
  }
}
