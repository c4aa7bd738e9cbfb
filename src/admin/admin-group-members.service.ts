import { Injectable } from '@nestjs/common';
import type { AdminActor } from './admin-actor';
import { AdminMemberMuteReply, AdminMemberRemoveReply, AdminGroupTransferReply } from './admin-enforcement.reply';

/** A group's members as the operator changes them: the owner's own operations, audited. */
@Injectable()
export class AdminGroupMembersService {
  mute(
    actor: AdminActor,
    groupPublicId: string,
    userExternalId: string,
    durationSeconds: number,
    reportId?: string,
  ): Promise<AdminMemberMuteReply> {
    void [actor, groupPublicId, userExternalId, durationSeconds, reportId];
    throw new Error('not yet');
  }

  remove(
    actor: AdminActor,
    groupPublicId: string,
    userExternalId: string,
    reportId?: string,
  ): Promise<AdminMemberRemoveReply> {
    void [actor, groupPublicId, userExternalId, reportId];
    throw new Error('not yet');
  }

  transferOwnership(
    actor: AdminActor,
    groupPublicId: string,
    newOwnerExternalId: string,
    reportId?: string,
  ): Promise<AdminGroupTransferReply> {
    void [actor, groupPublicId, newOwnerExternalId, reportId];
    throw new Error('not yet');
  }
}
