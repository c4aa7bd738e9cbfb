import { Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { GroupOperatorService } from '../groups/group-operator.service';
import type { AdminActor } from './admin-actor';
import { AdminAuditService } from './admin-audit.service';
import type { ReportLink } from './report-link';
import { AdminGroupTransferReply, AdminMemberMuteReply, AdminMemberRemoveReply } from './admin-enforcement.reply';

const MAX_MUTE_SECONDS = 30 * 24 * 3600;

/**
 * A group's members as the operator changes them: the owner's own operations
 * (GroupOperatorService), each with its audit row in the same transaction. The target of the
 * audit row is the group; the member is named in before/after.
 */
@Injectable()
export class AdminGroupMembersService {
  constructor(
    private readonly operator: GroupOperatorService,
    private readonly audit: AdminAuditService,
  ) {}

  /** `durationSeconds` 0 unmutes; at most 30 days, as the owner's mute. */
  async mute(
    actor: AdminActor,
    groupPublicId: string,
    userExternalId: string,
    durationSeconds: number,
    report?: ReportLink,
  ): Promise<AdminMemberMuteReply> {
    if (!Number.isInteger(durationSeconds) || durationSeconds < 0 || durationSeconds > MAX_MUTE_SECONDS)
      throw AppError.invalid('duration_seconds', `must be a JSON integer from 0 to ${MAX_MUTE_SECONDS} (0 unmutes)`);
    const result = await this.operator.mute(
      groupPublicId,
      userExternalId,
      durationSeconds,
      async (manager, change, r) => {
        await this.audit.record(manager, actor, {
          action: durationSeconds === 0 ? 'group.member_unmuted' : 'group.member_muted',
          targetType: 'group',
          targetId: change.groupPublicId,
          before: { user_id: r.userExternalId, muted_until: Number(change.before?.mutedUntil ?? 0) },
          after: { user_id: r.userExternalId, muted_until: r.mutedUntil },
          reportId: report?.id,
        });
        await report?.linked(manager);
      },
    );
    return {
      group_id: result.groupPublicId,
      user_id: result.userExternalId,
      muted_until: result.mutedUntil,
      event_id: result.eventId,
    };
  }

  async remove(
    actor: AdminActor,
    groupPublicId: string,
    userExternalId: string,
    reportId?: string,
  ): Promise<AdminMemberRemoveReply> {
    // Someone who is not a current member is no change: no audit row, as an edit that changes nothing.
    const result = await this.operator.remove(groupPublicId, userExternalId, async (manager, change, r) => {
      if (!r.removed) return;
      await this.audit.record(manager, actor, {
        action: 'group.member_removed',
        targetType: 'group',
        targetId: change.groupPublicId,
        before: { user_id: r.userExternalId, member: true, role: change.before?.role ?? null },
        after: { user_id: r.userExternalId, member: false, role: null },
        reportId,
      });
    });
    return {
      group_id: result.groupPublicId,
      user_id: result.userExternalId,
      removed: result.removed,
      event_id: result.eventId,
    };
  }

  async transferOwnership(
    actor: AdminActor,
    groupPublicId: string,
    newOwnerExternalId: string,
    reportId?: string,
  ): Promise<AdminGroupTransferReply> {
    const result = await this.operator.transfer(groupPublicId, newOwnerExternalId, (manager, change, r) =>
      this.audit.record(manager, actor, {
        action: 'group.owner_transferred',
        targetType: 'group',
        targetId: change.groupPublicId,
        before: { owner_user_id: r.previousOwnerExternalId },
        after: { owner_user_id: r.ownerExternalId },
        reportId,
      }),
    );
    return {
      group_id: result.groupPublicId,
      owner_user_id: result.ownerExternalId,
      previous_owner_user_id: result.previousOwnerExternalId,
      event_id: result.eventId,
    };
  }
}
