import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { User } from './user';

/** Appends the event of a profile change inside the transaction that makes it. */
export type AnnounceProfile = (manager: EntityManager, user: User) => Promise<unknown>;

/**
 * Where a profile change made below the feature modules (the host's token and upsert calls)
 * gets its `user.profile_updated`: the profile module, which knows the friends to tell,
 * registers the announcer at start. Without one (a context that has no profile module),
 * changes are stored silently.
 */
@Injectable()
export class ProfileChangeAnnouncer {
  private announcer: AnnounceProfile | null = null;

  register(announcer: AnnounceProfile): void {
    this.announcer = announcer;
  }

  announce(manager: EntityManager, user: User): Promise<unknown> {
    return this.announcer ? this.announcer(manager, user) : Promise.resolve();
  }
}
