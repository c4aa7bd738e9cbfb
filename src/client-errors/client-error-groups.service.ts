import { Injectable } from '@nestjs/common';
import type { ClientErrorEntity } from './client-error.entity';
import type { ClientErrorGroupEntity } from './client-error-group.entities';
import { clientErrorGroupKey, groupBuild, severityOfRank, SEVERITY_RANKS } from './client-error-group-key';
import type { ClientErrorRecord } from './client-error-record';
import type {
  ClientErrorGroup,
  ClientErrorGroupFilters,
  ClientErrorGroupRef,
  ClientErrorGroupSort,
  ClientErrorGroupTrend,
} from './client-error-group';
import { ClientErrorGroupsRepository, GroupPosition } from './client-error-groups.repository';
import { ClientErrorsRepository } from './client-errors.repository';
import { toClientErrorRecord } from './client-error-records.service';
import { ClientErrorRollups } from './client-error-rollups.service';

function toGroup(row: ClientErrorGroupEntity): ClientErrorGroup {
  return {
    errorCode: row.errorCode,
    platform: row.platform,
    buildId: row.buildId === '' ? null : row.buildId,
    severity: severityOfRank(row.severityRank),
    occurrenceCount: row.occurrenceCount,
    userCount: row.userCount,
    deviceCount: row.deviceCount,
    firstSeenAt: row.firstSeenAt,
    lastSeenAt: row.lastSeenAt,
    lastMessage: row.lastMessage,
  };
}

/** The keyset position after a group for a sort: its sort value and row id. */
export interface ClientErrorGroupPage {
  groups: ClientErrorGroup[];
  /** Position after each group, in order. */
  positions: GroupPosition[];
}

/**
 * Client errors grouped by (error code, platform, build), read from the rollups that the reports
 * are counted into after their commit (ClientErrorRollups), and each group's occurrences. Every
 * read of the rollups first counts what this instance holds, so on one instance a report is in
 * its group once its request has answered; a report that another instance accepted shows up
 * after that instance's next flush (ROLLUP_FLUSH_MS) at most.
 */
@Injectable()
export class ClientErrorGroupsService {
  constructor(
    private readonly groups: ClientErrorGroupsRepository,
    private readonly records: ClientErrorsRepository,
    private readonly rollups: ClientErrorRollups,
  ) {}

  async list(
    filters: ClientErrorGroupFilters,
    sort: ClientErrorGroupSort,
    after: GroupPosition | null,
    limit: number,
  ): Promise<ClientErrorGroupPage> {
    await this.rollups.flush();
    const rows = await this.groups.list(
      {
        platform: filters.platform,
        build: filters.buildId,
        errorCode: filters.errorCode,
        severityRank: filters.severity && SEVERITY_RANKS[filters.severity],
        from: filters.from,
        to: filters.to,
      },
      sort,
      after,
      limit,
    );
    const value = (row: ClientErrorGroupEntity): number =>
      sort === 'occurrences' ? row.occurrenceCount : sort === 'users' ? row.userCount : row.lastSeenAt;
    return { groups: rows.map(toGroup), positions: rows.map((row) => [value(row), row.id]) };
  }

  async find(ref: ClientErrorGroupRef): Promise<ClientErrorGroup | null> {
    await this.rollups.flush();
    const row = await this.groups.findByKey(clientErrorGroupKey(ref.errorCode, ref.platform, ref.buildId));
    return row ? toGroup(row) : null;
  }

  /** The group's counts per hour from `hoursFrom` and per day from `daysFrom`. */
  async trend(ref: ClientErrorGroupRef, hoursFrom: number, daysFrom: number): Promise<ClientErrorGroupTrend> {
    const key = clientErrorGroupKey(ref.errorCode, ref.platform, ref.buildId);
    await this.rollups.flush();
    const [hours, days] = await Promise.all([
      this.groups.counts(key, 'hours', hoursFrom),
      this.groups.counts(key, 'days', daysFrom),
    ]);
    return { hours, days };
  }

  /** The group's stored records (each up to a minute of one device's similar reports), newest first. */
  async occurrences(
    ref: ClientErrorGroupRef,
    after: [number, string] | null,
    limit: number,
  ): Promise<Array<{ record: ClientErrorRecord; position: [number, string] }>> {
    const rows: ClientErrorEntity[] = await this.records.listOfGroup(
      { errorCode: ref.errorCode, platform: ref.platform, build: groupBuild(ref.buildId) },
      after,
      limit,
    );
    return rows.map((row) => ({ record: toClientErrorRecord(row), position: [row.lastSeenAt, row.id] }));
  }
}
