import { Injectable } from '@nestjs/common';
import { AdminAuditService } from '../admin/admin-audit.service';
import { AppError } from '../common/app-error';
import type { AuthUser } from '../common/auth-user';
import type { Alongside } from '../database/alongside';
import type { User } from '../users/user';
import { UsersService } from '../users/users.service';
import type { HostActor } from './host-actor';
import { ServerRequestsService } from './server-requests.service';

/** What the audit row of a write says about it. */
export interface HostAudit<R> {
  action: string;
  targetType: 'user' | 'group' | 'conversation';
  /** A function when the reply decides it (a generated group ID). */
  targetId: string | ((reply: R) => string);
  /** The row's `after`: what the host asked and what it got (event IDs included). */
  after: (reply: R) => unknown;
}

export const asAuthUser = (user: User): AuthUser => ({ internalId: String(user.id), externalId: user.externalId });

/**
 * What every server API write shares: users named by external ID, and the idempotency record
 * and audit row written in the transaction of the change (through the services' `alongside`).
 */
@Injectable()
export class ServerWrites {
  constructor(
    private readonly requests: ServerRequestsService,
    private readonly audit: AdminAuditService,
    private readonly users: UsersService,
  ) {}

  /**
   * Runs a write once per request_id: `perform` gets the `alongside` to hand to the service,
   * which records the reply and the audit row with the change.
   */
  once<R>(
    host: HostActor,
    operation: string,
    request: { request_id: string },
    audit: HostAudit<R>,
    perform: (alongside: Alongside<R>) => Promise<R>,
  ): Promise<R> {
    return this.requests.once<R>(operation, request, (record) =>
      perform(async (manager, reply) => {
        await record(manager, reply);
        await this.audit.recordHost(manager, host.traceId, {
          action: audit.action,
          targetType: audit.targetType,
          targetId: typeof audit.targetId === 'string' ? audit.targetId : audit.targetId(reply),
          before: null,
          after: { request_id: request.request_id, ...(audit.after(reply) as object) },
        });
      }),
    );
  }

  /**
   * Users the host names must exist: an unknown one is 1004 naming the field (the host upserts
   * users before acting for them; nothing is created here). `active`: a disabled user is refused too.
   */
  async user(externalId: string, field: string, active = true): Promise<User> {
    return (await this.usersNamed([externalId], field, active))[0];
  }

  async usersNamed(externalIds: readonly string[], field: string, active = true): Promise<User[]> {
    const found = new Map((await this.users.findByExternalIds(externalIds)).map((u) => [u.externalId, u]));
    return externalIds.map((id) => {
      const user = found.get(id);
      if (!user) throw AppError.invalid(field, `no such user "${id}" (upsert the user first)`);
      if (active && this.users.isDisabled(user)) throw AppError.invalid(field, `user "${id}" is disabled`);
      return user;
    });
  }
}
