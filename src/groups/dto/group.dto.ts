import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, Max, Min } from 'class-validator';
import { ListQueryDto } from '../../common/pagination/list-query.dto';
import { AVATAR_RULES, GROUP_ID_RULES, USER_ID_RULES } from '../../common/validation/field-rules';
import { Optional, Required } from '../../common/validation/presence.decorators';
import { IsText, TextRules } from '../../common/validation/text-field.decorator';
import { AreUserIds } from '../../common/validation/user-ids.decorator';
import type {
  CreateGroupRequest,
  CreateInvitationRequest,
  GroupMemberRefRequest,
  GroupMembersChangeRequest,
  GroupMembersQuery,
  GroupRefRequest,
  JoinGroupRequest,
  MuteGroupMemberRequest,
  SetGroupAdminRequest,
  UpdateGroupRequest,
} from '../../contract/requests';

export const GROUP_NAME_RULES: TextRules = { min: 1, max: 80, noControl: true, noEdgeWhitespace: true };
export const GROUP_INTRODUCTION_RULES: TextRules = {
  min: 0,
  max: 1000,
  // Line breaks and tabs are allowed in an introduction; other control characters are not.
  pattern: {
    regex: /^(?:[^\p{Cc}]|[\t\n\r])*$/u,
    description: 'text without control characters other than tab and line breaks',
  },
};
export const MAX_CREATE_MEMBERS = 200;
export const MAX_MEMBERS_PER_CHANGE = 100;
export const MAX_MUTE_SECONDS = 30 * 24 * 3600;
/** Invitation codes are unpadded Base64URL. */
export const INVITATION_CODE_RULES: TextRules = {
  min: 1,
  max: 64,
  pattern: { regex: /^[A-Za-z0-9_-]+$/, description: 'an invitation code (letters, digits, "_" or "-")' },
};

const GROUP_ID_DOC = {
  description: 'Public group ID: 1–32 characters of letters, digits, ".", "_", "-".',
  example: 'team-1',
};

/** Names one group; every group operation starts from it. */
export class GroupRefDto implements GroupRefRequest {
  @ApiProperty(GROUP_ID_DOC)
  @Required()
  @IsText(GROUP_ID_RULES)
  group_id: string;
}

/** GET /app/sdk/groups/get */
export class GroupQueryDto extends GroupRefDto {}

/** GET /app/sdk/groups/members */
export class GroupMembersQueryDto extends ListQueryDto implements GroupMembersQuery {
  @ApiProperty(GROUP_ID_DOC)
  @Required()
  @IsText(GROUP_ID_RULES)
  group_id: string;
}

/** GET /app/sdk/groups */
export class MyGroupsQueryDto extends ListQueryDto {}

/** POST /app/sdk/groups/create */
export class CreateGroupDto implements CreateGroupRequest {
  @ApiPropertyOptional({
    ...GROUP_ID_DOC,
    description: `${GROUP_ID_DOC.description} Generated when absent; one already taken is refused with 1004.`,
  })
  @Optional()
  @IsText(GROUP_ID_RULES)
  group_id?: string;

  @ApiProperty({
    description: '1–80 characters, no control characters, no leading/trailing whitespace.',
    example: 'Weekend hikers',
  })
  @Required()
  @IsText(GROUP_NAME_RULES)
  name: string;

  @ApiPropertyOptional({ description: 'http(s) URL, at most 1024 characters; "" selects the default avatar.' })
  @Optional()
  @IsText(AVATAR_RULES)
  avatar?: string;

  @ApiPropertyOptional({ description: 'At most 1000 characters; line breaks allowed, other control characters not.' })
  @Optional()
  @IsText(GROUP_INTRODUCTION_RULES)
  introduction?: string;

  @ApiPropertyOptional({
    type: [String],
    description: `Initial members besides the caller (who becomes owner): at most ${MAX_CREATE_MEMBERS} distinct external user IDs of existing users (1204 otherwise).`,
  })
  @Optional()
  @AreUserIds(0, MAX_CREATE_MEMBERS)
  member_ids?: string[];
}

/** POST /app/sdk/groups/update */
export class UpdateGroupDto extends GroupRefDto implements UpdateGroupRequest {
  @ApiPropertyOptional({ description: '1–80 characters, no control characters, no leading/trailing whitespace.' })
  @Optional()
  @IsText(GROUP_NAME_RULES)
  name?: string;

  @ApiPropertyOptional({ description: 'http(s) URL, at most 1024 characters; "" selects the default avatar.' })
  @Optional()
  @IsText(AVATAR_RULES)
  avatar?: string;

  @ApiPropertyOptional({ description: 'At most 1000 characters; line breaks allowed.' })
  @Optional()
  @IsText(GROUP_INTRODUCTION_RULES)
  introduction?: string;
}

/** POST /app/sdk/groups/members/add and /members/remove */
export class GroupMembersChangeDto extends GroupRefDto implements GroupMembersChangeRequest {
  @ApiProperty({ type: [String], description: `1–${MAX_MEMBERS_PER_CHANGE} distinct external user IDs.` })
  @Required()
  @AreUserIds(1, MAX_MEMBERS_PER_CHANGE)
  user_ids: string[];
}

/** Names one member of one group. */
export class GroupMemberRefDto extends GroupRefDto implements GroupMemberRefRequest {
  @ApiProperty({ description: 'External user ID of the member.', example: 'u_10087' })
  @Required()
  @IsText(USER_ID_RULES)
  user_id: string;
}

/** POST /app/sdk/groups/admins/set */
export class SetGroupAdminDto extends GroupMemberRefDto implements SetGroupAdminRequest {
  @ApiProperty({ description: 'true makes the member an admin, false a plain member (JSON boolean only).' })
  @Required()
  @IsBoolean({ message: 'admin must be a JSON boolean (true or false)' })
  admin: boolean;
}

/** POST /app/sdk/groups/transfer */
export class TransferGroupDto extends GroupMemberRefDto {}

/** POST /app/sdk/groups/members/mute */
export class MuteGroupMemberDto extends GroupMemberRefDto implements MuteGroupMemberRequest {
  @ApiProperty({ description: `JSON integer 0–${MAX_MUTE_SECONDS} (30 days); 0 unmutes.`, example: 3600 })
  @Required()
  @IsInt({ message: 'duration_seconds must be a JSON integer' })
  @Min(0, { message: `duration_seconds must be an integer from 0 to ${MAX_MUTE_SECONDS}` })
  @Max(MAX_MUTE_SECONDS, { message: `duration_seconds must be an integer from 0 to ${MAX_MUTE_SECONDS}` })
  duration_seconds: number;
}

/** POST /app/sdk/groups/invitations/create */
export class CreateInvitationDto extends GroupRefDto implements CreateInvitationRequest {
  @ApiPropertyOptional({
    description:
      'JSON integer from 60 to the configured maximum (INVITATION_TTL_SECONDS, default 7 days), which is also the default.',
  })
  @Optional()
  @IsInt({ message: 'ttl_seconds must be a JSON integer' })
  ttl_seconds?: number;
}

/** POST /app/sdk/groups/join */
export class JoinGroupDto implements JoinGroupRequest {
  @ApiProperty({ description: 'The invitation code.', example: 'o2Vt0Zbq4pCw3nEj9X1yKQaL' })
  @Required()
  @IsText(INVITATION_CODE_RULES)
  code: string;
}
