import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { Clock } from '../common/clock';
import { AdminAuditRepository } from './admin-audit.repository';
import type { AdminActor } from './admin-actor';

/** The `admin` shown for the host backend's rows in the audit log. */
export const HOST_ACTOR_NAME = '(host)';

export interface AuditEntry {
  action: string;
  targetType: string;
  targetId: string;
  before: unknown;
  after: unknown;
  /** The report the action was taken from: the row is listed in that report's history too. */
  reportId?: string;
}

/** Writes the audit row of an admin action with the action's own transaction, so neither exists without the other. */
@Injectable()
export class AdminAuditService {
  constructor(
    private readonly audit: AdminAuditRepository,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async record(manager: EntityManager, actor: AdminActor, entry: AuditEntry): Promise<void> {
    await this.audit.insert(manager, {
      adminId: actor.id,
      adminUsername: actor.username,
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId,
      beforeJson: entry.before === null || entry.before === undefined ? null : JSON.stringify(entry.before),
      afterJson: entry.after === null || entry.after === undefined ? null : JSON.stringify(entry.after),
      traceId: actor.traceId,
      createdAt: this.clock.now(),
      actorKind: 'admin',
      reportId: entry.reportId ?? null,
    });
  }

  /**
   * A write of the host backend through the server API. The host has no admin account: the row
   * says so by its actor kind ('host', with admin ID 0 and the name "(host)"), so that it is never
   * taken for an account's, whatever the accounts are named.
   */
  async recordHost(manager: EntityManager, traceId: string, entry: AuditEntry): Promise<void> {
    await this.audit.insert(manager, {
      adminId: '0',
      adminUsername: HOST_ACTOR_NAME,
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId,
      beforeJson: entry.before === null || entry.before === undefined ? null : JSON.stringify(entry.before),
      afterJson: entry.after === null || entry.after === undefined ? null : JSON.stringify(entry.after),
      traceId,
      createdAt: this.clock.now(),
      actorKind: 'host',
      reportId: entry.reportId ?? null,
    });
  }
}
