import { Injectable } from '@nestjs/common';
import type { User } from './user';
import type { UserBrowseFilters, UserPosition, UserSort } from './user-browse';
import { UsersBrowseRepository } from './users-browse.repository';

/** The operator console's Users list (sorted, filtered, keyset-paged), as plain User records. */
@Injectable()
export class UserBrowser {
  constructor(private readonly repository: UsersBrowseRepository) {}

  /** Up to `limit` users after `after` in `sort` order; `now` decides whether a timed disable still holds. */
  page(
    filters: UserBrowseFilters,
    sort: UserSort,
    after: UserPosition | null,
    limit: number,
    now: number,
  ): Promise<User[]> {
    return this.repository.page(filters, sort, after, limit, now);
  }
}
