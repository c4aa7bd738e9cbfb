import { Body, Controller, Post } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { AdminActor, CurrentAdmin } from './admin-actor';
import { AdminApi } from './admin-api.decorator';
import { AdminMemberRefDto, AdminMessagesDto, AdminMuteMemberDto } from './admin-enforcement.dto';
import {
  AdminGroupTransferReply,
  AdminMemberMuteReply,
  AdminMemberRemoveReply,
  AdminMessagesChangeReply,
} from './admin-enforcement.reply';
import { AdminGroupMembersService } from './admin-group-members.service';
import { AdminMessagesService } from './admin-messages.service';
import { AdminRoles } from './admin.guard';

/** A group's members changed by the operator, as the owner would change them: moderators and owners. */
@AdminApi()
@Controller('app/admin/groups')
export class AdminGroupMembersController {
  constructor(private readonly members: AdminGroupMembersService) {}

  @Post('members/mute')
  @AdminRoles('moderator')
  @ApiOperation({
    summary: "Mute a member for duration_seconds (0 unmutes), as the owner's mute; the owner cannot be muted.",
  })
  @ApiEnvelope(AdminMemberMuteReply, ENDPOINT_ERRORS.adminGroupMembers.mute)
  mute(@CurrentAdmin() actor: AdminActor, @Body() dto: AdminMuteMemberDto): Promise<AdminMemberMuteReply> {
    return this.members.mute(actor, dto.group_id, dto.user_id, dto.duration_seconds);
  }

  @Post('members/remove')
  @AdminRoles('moderator')
  @ApiOperation({ summary: "Remove a member, as the owner's removal; the owner cannot be removed (transfer first)." })
  @ApiEnvelope(AdminMemberRemoveReply, ENDPOINT_ERRORS.adminGroupMembers.remove)
  remove(@CurrentAdmin() actor: AdminActor, @Body() dto: AdminMemberRefDto): Promise<AdminMemberRemoveReply> {
    return this.members.remove(actor, dto.group_id, dto.user_id);
  }

  @Post('transfer')
  @AdminRoles('moderator')
  @ApiOperation({
    summary: "Make a current member the owner, as the owner's transfer; the old owner becomes an admin.",
  })
  @ApiEnvelope(AdminGroupTransferReply, ENDPOINT_ERRORS.adminGroupMembers.transfer)
  transfer(@CurrentAdmin() actor: AdminActor, @Body() dto: AdminMemberRefDto): Promise<AdminGroupTransferReply> {
    return this.members.transferOwnership(actor, dto.group_id, dto.user_id);
  }
}

/** Messages recalled or deleted for everyone by the operator: moderators and owners. */
@AdminApi()
@Controller('app/admin/messages')
export class AdminMessagesController {
  constructor(private readonly messages: AdminMessagesService) {}

  @Post('recall')
  @AdminRoles('moderator')
  @ApiOperation({
    summary: "Recall up to 50 messages of a conversation for everyone, as a sender's recall (no time limit).",
  })
  @ApiEnvelope(AdminMessagesChangeReply, ENDPOINT_ERRORS.adminMessages.recall)
  recall(@CurrentAdmin() actor: AdminActor, @Body() dto: AdminMessagesDto): Promise<AdminMessagesChangeReply> {
    return this.messages.recall(actor, dto.conversation_id, dto.message_ids);
  }

  @Post('delete')
  @AdminRoles('moderator')
  @ApiOperation({
    summary: "Delete up to 50 messages of a conversation for everyone, as a sender's delete (content removed).",
  })
  @ApiEnvelope(AdminMessagesChangeReply, ENDPOINT_ERRORS.adminMessages.delete)
  delete(@CurrentAdmin() actor: AdminActor, @Body() dto: AdminMessagesDto): Promise<AdminMessagesChangeReply> {
    return this.messages.delete(actor, dto.conversation_id, dto.message_ids);
  }
}
