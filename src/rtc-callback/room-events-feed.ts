import { Injectable } from '@nestjs/common';
import type { RoomEvent } from './room-callback';

/**
 * Hands each newly stored room event to whoever acts on it (calls). Listeners are awaited: if
 * one fails, the callback answers an error and the stored event is removed, so the provider's
 * retry is processed again rather than acknowledged as a duplicate.
 */
@Injectable()
export class RoomEventsFeed {
  private readonly listeners: Array<(event: RoomEvent) => Promise<void>> = [];

  subscribe(listener: (event: RoomEvent) => Promise<void>): void {
    this.listeners.push(listener);
  }

  async publish(event: RoomEvent): Promise<void> {
    for (const listener of this.listeners) await listener(event);
  }
}
