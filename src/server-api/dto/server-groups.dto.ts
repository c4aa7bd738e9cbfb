import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import type {
  ServerCreateGroupRequest,
  ServerFriendPairRequest,
  ServerGroupMembersRequest,
  ServerGroupRefRequest,
  ServerSetRoleRequest,
  ServerUpdateGroupRequest,
} from '../../contract/server-api';
import { AVATAR_RULES, GROUP_ID_RULES, USER_ID_RULES } from '../../common/validation/field-rules';
import { Optional, Required } from '../../common/validation/presence.decorators';
import { IsText } from '../../common/validation/text-field.decorator';
import { AreUserIds } from '../../common/validation/user-ids.decorator';
import {
  GROUP_INTRODUCTION_RULES,
  GROUP_NAME_RULES,
  MAX_CREATE_MEMBERS,
  MAX_MEMBERS_PER_CHANGE,
} from '../../groups/dto/group.dto';
import { ServerWriteDto } from './server-messages.dto';

const GROUP_ID_DOC = {
  description: 'Public group ID: 1–32 characters of letters, digits, ".", "_", "-".',
  example: 'team-1',
};

export class ServerGroupRefDto extends ServerWriteDto implements ServerGroupRefRequest {
  @ApiProperty(GROUP_ID_DOC)
  @Required()
  @IsText(GROUP_ID_RULES)
  group_id: string;
}

export class ServerCreateGroupDto extends ServerWriteDto implements ServerCreateGroupRequest {
  @ApiProperty({ description: 'External ID of the user who becomes the owner.', example: 'u_10086' })
  @Required()
  @IsText(USER_ID_RULES)
  owner_id: string;

  @ApiPropertyOptional({ ...GROUP_ID_DOC, description: `${GROUP_ID_DOC.description} Generated when absent.` })
  @Optional()
  @IsText(GROUP_ID_RULES)
  group_id?: string;

  @ApiProperty({ description: '1–80 characters, no control characters, no edge whitespace.', example: 'Team 1' })
  @Required()
  @IsText(GROUP_NAME_RULES)
  name: string;

  @ApiPropertyOptional({ description: 'http(s) URL, at most 1024 characters; "" selects the default avatar.' })
  @Optional()
  @IsText(AVATAR_RULES)
  avatar?: string;

  @ApiPropertyOptional({ description: 'At most 1000 characters; line breaks allowed.' })
  @Optional()
  @IsText(GROUP_INTRODUCTION_RULES)
  introduction?: string;

  @ApiPropertyOptional({
    type: [String],
    description: `Members besides the owner: at most ${MAX_CREATE_MEMBERS} distinct external IDs of existing users.`,
  })
  @Optional()
  @AreUserIds(0, MAX_CREATE_MEMBERS)
  member_ids?: string[];
}

export class ServerUpdateGroupDto extends ServerGroupRefDto implements ServerUpdateGroupRequest {
  @ApiPropertyOptional({ description: '1–80 characters, no control characters, no edge whitespace.' })
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

export class ServerGroupMembersDto extends ServerGroupRefDto implements ServerGroupMembersRequest {
  @ApiProperty({ type: [String], description: `1–${MAX_MEMBERS_PER_CHANGE} distinct external user IDs.` })
  @Required()
  @AreUserIds(1, MAX_MEMBERS_PER_CHANGE)
  user_ids: string[];
}

export class ServerSetRoleDto extends ServerGroupRefDto implements ServerSetRoleRequest {
  @ApiProperty({ description: 'A current member other than the owner.', example: 'u_10087' })
  @Required()
  @IsText(USER_ID_RULES)
  user_id: string;

  @ApiProperty({ enum: ['admin', 'member'] })
  @Required()
  @IsIn(['admin', 'member'], { message: 'role must be admin or member' })
  role: 'admin' | 'member';
}

export class ServerFriendPairDto extends ServerWriteDto implements ServerFriendPairRequest {
  @ApiProperty({ description: 'External user ID.', example: 'u_10086' })
  @Required()
  @IsText(USER_ID_RULES)
  user_id: string;

  @ApiProperty({ description: 'External user ID of the other user.', example: 'u_10087' })
  @Required()
  @IsText(USER_ID_RULES)
  friend_id: string;
}
