// The request shapes of src/contract/requests.ts against the server's DTO classes. The DTOs
// `implements` them, which catches a field the DTO dropped or retyped; these checks also catch a
// field the DTO added or made required, which the SDK would then not send.
import { compileProblems } from '../helpers/type-check';
import type * as contract from '../../src/contract';
import type { AcceptCallDto, CallRefDto, RejectCallDto, StartCallDto } from '../../src/calls/dto/call.dto';
import type { ListQueryDto } from '../../src/common/pagination/list-query.dto';
import type { FriendRequestRefDto } from '../../src/friends/dto/friend-request-ref.dto';
import type { FriendUserDto } from '../../src/friends/dto/friend-user.dto';
import type { ListFriendRequestsQueryDto } from '../../src/friends/dto/list-friend-requests.dto';
import type { SendFriendRequestDto } from '../../src/friends/dto/send-friend-request.dto';
import type {
  CreateGroupDto,
  CreateInvitationDto,
  GroupMemberRefDto,
  GroupMembersChangeDto,
  GroupMembersQueryDto,
  GroupQueryDto,
  GroupRefDto,
  JoinGroupDto,
  MuteGroupMemberDto,
  MyGroupsQueryDto,
  SetGroupAdminDto,
  TransferGroupDto,
  UpdateGroupDto,
} from '../../src/groups/dto/group.dto';
import type { UserProfileQueryDto, UsernameLookupQueryDto } from '../../src/profile/dto/profile-query.dto';
import type { UpdateProfileDto } from '../../src/profile/dto/update-profile.dto';
import type { PushRegisterDto, PushSettingsDto, PushUnregisterDto } from '../../src/push/dto/push.dto';
import type { PushTestDto } from '../../src/push/push-admin.dto';
import type { PresenceQueryDto } from '../../src/realtime/dto/presence-query.dto';
import type { GroupReportDto, ReportFieldsDto, UserReportDto } from '../../src/reports/dto/create-report.dto';
import type {
  ServerCreateGroupDto,
  ServerFriendPairDto,
  ServerGroupMembersDto,
  ServerGroupRefDto,
  ServerSetRoleDto,
  ServerUpdateGroupDto,
} from '../../src/server-api/dto/server-groups.dto';
import type {
  ServerListConversationsDto,
  ServerListMessagesDto,
  ServerNoticeDto,
  ServerSendMessageDto,
  ServerWriteDto,
} from '../../src/server-api/dto/server-messages.dto';
import type { EraseUserDto } from '../../src/server-api/user-erasure.dto';
import type { ExportUserDto } from '../../src/server-api/user-export.dto';

/** true when A and B are the same type, optional fields and all (see contract.e2e-spec.ts). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Expect<T extends true> = T;

export type RequestShapes = [
  Expect<Same<ListQueryDto, contract.ListQuery>>,
  Expect<Same<FriendUserDto, contract.FriendUserRequest>>,
  Expect<Same<SendFriendRequestDto, contract.SendFriendRequestRequest>>,
  Expect<Same<ListFriendRequestsQueryDto, contract.FriendRequestsQuery>>,
  Expect<Same<FriendRequestRefDto, contract.FriendRequestRefRequest>>,
  Expect<Same<UserProfileQueryDto, contract.UserProfileQuery>>,
  Expect<Same<UsernameLookupQueryDto, contract.UsernameLookupQuery>>,
  Expect<Same<UpdateProfileDto, contract.UpdateProfileRequest>>,
  Expect<Same<PresenceQueryDto, contract.PresenceQueryRequest>>,
  Expect<Same<GroupRefDto, contract.GroupRefRequest>>,
  Expect<Same<GroupQueryDto, contract.GroupRefRequest>>,
  Expect<Same<GroupMemberRefDto, contract.GroupMemberRefRequest>>,
  Expect<Same<TransferGroupDto, contract.GroupMemberRefRequest>>,
  Expect<Same<MyGroupsQueryDto, contract.ListQuery>>,
  Expect<Same<CreateGroupDto, contract.CreateGroupRequest>>,
  Expect<Same<UpdateGroupDto, contract.UpdateGroupRequest>>,
  Expect<Same<GroupMembersQueryDto, contract.GroupMembersQuery>>,
  Expect<Same<GroupMembersChangeDto, contract.GroupMembersChangeRequest>>,
  Expect<Same<SetGroupAdminDto, contract.SetGroupAdminRequest>>,
  Expect<Same<MuteGroupMemberDto, contract.MuteGroupMemberRequest>>,
  Expect<Same<CreateInvitationDto, contract.CreateInvitationRequest>>,
  Expect<Same<JoinGroupDto, contract.JoinGroupRequest>>,
  Expect<Same<StartCallDto, contract.StartCallRequest>>,
  Expect<Same<CallRefDto, contract.CallRefRequest>>,
  Expect<Same<AcceptCallDto, contract.AcceptCallRequest>>,
  Expect<Same<RejectCallDto, contract.RejectCallRequest>>,
  Expect<Same<ReportFieldsDto, contract.ReportFieldsRequest>>,
  Expect<Same<GroupReportDto, contract.GroupReportRequest>>,
  Expect<Same<UserReportDto, contract.UserReportRequest>>,
  Expect<Same<EraseUserDto, contract.EraseUserRequest>>,
  Expect<Same<ExportUserDto, contract.ExportUserRequest>>,
  Expect<Same<ServerWriteDto, contract.ServerWriteRequest>>,
  Expect<Same<ServerSendMessageDto, contract.ServerSendMessageRequest>>,
  Expect<Same<ServerNoticeDto, contract.ServerNoticeRequest>>,
  Expect<Same<ServerListMessagesDto, contract.ServerListMessagesRequest>>,
  Expect<Same<ServerListConversationsDto, contract.ServerListConversationsRequest>>,
  Expect<Same<ServerCreateGroupDto, contract.ServerCreateGroupRequest>>,
  Expect<Same<ServerUpdateGroupDto, contract.ServerUpdateGroupRequest>>,
  Expect<Same<ServerGroupMembersDto, contract.ServerGroupMembersRequest>>,
  Expect<Same<ServerSetRoleDto, contract.ServerSetRoleRequest>>,
  Expect<Same<ServerGroupRefDto, contract.ServerGroupRefRequest>>,
  Expect<Same<ServerFriendPairDto, contract.ServerFriendPairRequest>>,
  Expect<Same<PushRegisterDto, contract.PushRegisterRequest>>,
  Expect<Same<PushUnregisterDto, contract.PushUnregisterRequest>>,
  Expect<Same<PushSettingsDto, contract.PushSettingsRequest>>,
  Expect<Same<PushTestDto, contract.PushTestRequest>>,
];

describe('request contract (src/contract/requests.ts)', () => {
  it('the type-level checks of this file compile: no DTO drifted from its request shape', () => {
    const problems = compileProblems(__filename);
    expect(problems).toEqual([]);
  }, 180_000);
});
