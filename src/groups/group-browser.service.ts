import { Injectable } from '@nestjs/common';
import type { Group } from './group';
import type { GroupBrowseFilters, GroupPosition, GroupTableSort, MembershipOfUser } from './group-browse';
import { GroupsBrowseRepository } from './groups-browse.repository';

/** The operator console's Groups list and a user's groups, as plain records. */
@Injectable()
export class GroupBrowser {
  constructor(private readonly repository: GroupsBrowseRepository) {}

  page(
    filters: GroupBrowseFilters,
    sort: GroupTableSort,
    after: GroupPosition | null,
    limit: number,
  ): Promise<Group[]> {
    return this.repository.page(filters, sort, after, limit);
  }

  /** Those of these groups (internal IDs, another module's order) that pass the filters, in no order. */
  among(filters: GroupBrowseFilters, ids: readonly string[]): Promise<Group[]> {
    return this.repository.among(filters, ids);
  }

  membershipsOfUser(userId: string, limit: number): Promise<MembershipOfUser[]> {
    return this.repository.membershipsOfUser(userId, limit);
  }
}
