import { Injectable } from '@nestjs/common';
import { TransactionRunner } from '../database/transaction-runner';
import { ConversationsRepairRepository } from './conversations-repair.repository';

export interface RepairSummary {
  /** Users whose one-to-one state was checked. */
  users: number;
  /** Users whose user_unread_totals row was missing or wrong. */
  totalsFixed: number;
  /** One-to-one member rows that had no peer_id. */
  peersFilled: number;
}

const BATCH = 500;

/**
 * Recounts derived one-to-one state (`npm run repair:conversations`): safe while the service
 * runs, one short transaction per user. Only needed after an earlier version's instance wrote
 * during the migration that introduced the state (see docs/upgrading.md).
 */
@Injectable()
export class ConversationsRepairService {
  constructor(
    private readonly repair: ConversationsRepairRepository,
    private readonly tx: TransactionRunner,
  ) {}

  async repairAll(): Promise<RepairSummary> {
    const summary: RepairSummary = { users: 0, totalsFixed: 0, peersFilled: 0 };
    for (let after: string | null = null; ;) {
      const users: string[] = await this.repair.usersWithDirectRows(after, BATCH);
      if (!users.length) return summary;
      add(summary, await this.repairUsers(users));
      after = users[users.length - 1];
    }
  }

  async repairUsers(userIds: readonly string[]): Promise<RepairSummary> {
    const summary: RepairSummary = { users: 0, totalsFixed: 0, peersFilled: 0 };
    for (const userId of userIds) {
      // Two short transactions: the peers lock only the rows they fix, the recount only the totals row.
      const peersFilled = await this.tx.run((manager) => this.repair.fillMissingPeers(manager, userId));
      const totalsFixed = await this.tx.run((manager) => this.repair.recountDirectTotals(manager, userId));
      add(summary, { users: 1, totalsFixed: totalsFixed ? 1 : 0, peersFilled });
    }
    return summary;
  }
}

function add(into: RepairSummary, part: RepairSummary): void {
  into.users += part.users;
  into.totalsFixed += part.totalsFixed;
  into.peersFilled += part.peersFilled;
}
