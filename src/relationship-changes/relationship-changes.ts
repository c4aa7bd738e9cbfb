import { Injectable, Logger } from '@nestjs/common';

/** What changed: the relationship of two users, or the membership of a group (by its internal ID). */
export type RelationshipChange = { kind: 'pair'; userId: string; otherId: string } | { kind: 'group'; groupId: string };

/**
 * How the friends and groups modules tell the calls that a relationship a live call rests on
 * may have ended (a block, an unfriend, a group dismissed, a member removed or gone). They call
 * it right after their own transaction commits; the calls module listens (CallRelationships)
 * and ends or trims the live calls the change no longer allows. It lives in a module of its own
 * that imports nothing, so that friends and groups can reach it without importing the calls
 * module, which depends on them through messaging.
 *
 * A listener that fails is logged, not thrown: the change it follows has committed already,
 * and `accept` and `ringing` check the relationship again before they let a call go on.
 */
@Injectable()
export class RelationshipChanges {
  private readonly logger = new Logger('Calls');
  private readonly listeners: Array<(change: RelationshipChange) => Promise<void>> = [];

  subscribe(listener: (change: RelationshipChange) => Promise<void>): void {
    this.listeners.push(listener);
  }

  /** Two users stopped being friends, or one blocked the other. */
  pairChanged(userId: string, otherId: string): Promise<void> {
    return this.publish({ kind: 'pair', userId, otherId });
  }

  /** Members left or were removed from a group, or it was dismissed. */
  groupChanged(groupId: string): Promise<void> {
    return this.publish({ kind: 'group', groupId });
  }

  private async publish(change: RelationshipChange): Promise<void> {
    for (const listener of this.listeners) {
      try {
        await listener(change);
      } catch (error) {
        this.logger.warn(`ending the calls after a ${change.kind} change failed: ${(error as Error).message}`);
      }
    }
  }
}
