import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { FriendsRepository } from './friends.repository';

/** Friendship and blocks between two users, as the other modules ask about them (sending, profiles, presence). */
@Injectable()
export class Relationships {
  constructor(private readonly friends: FriendsRepository) {}

  /** Whether the two are friends, and whether either blocked the other. */
  between(userId: string, otherId: string): Promise<{ friends: boolean; blocked: boolean }> {
    return this.friends.relationship(userId, otherId);
  }

  /** Whether `userId` blocked `otherId` (one direction). */
  hasBlocked(userId: string, otherId: string): Promise<boolean> {
    return this.friends.hasBlocked(userId, otherId);
  }

  /** The user's friends' internal IDs (`manager`: inside the caller's transaction). */
  friendIds(userId: string, manager?: EntityManager): Promise<string[]> {
    return this.friends.friendIds(userId, manager);
  }

  /**
   * Who hears the user's presence: friends, less those the user blocked (a block hides the
   * blocker's profile from the blocked user, and presence with it).
   */
  presenceAudience(userId: string): Promise<string[]> {
    return this.friends.friendIdsNotBlockedBy(userId);
  }

  /** Whose presence the user may read: friends who have not blocked the user. */
  presenceVisibleTo(userId: string): Promise<string[]> {
    return this.friends.friendIdsNotBlocking(userId);
  }
}
