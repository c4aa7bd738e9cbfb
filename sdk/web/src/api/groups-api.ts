import type {
  CreateGroupRequest,
  CreateInvitationRequest,
  GroupChangeReply,
  GroupDismissReply,
  GroupEnvelopeReply,
  GroupLeaveReply,
  GroupMemberPageReply,
  GroupMemberRefRequest,
  GroupMembersChangeRequest,
  GroupMembersQuery,
  GroupPageReply,
  GroupRefRequest,
  InvitationReply,
  JoinGroupRequest,
  ListQuery,
  MemberMuteReply,
  MemberRoleReply,
  MembersAddedReply,
  MembersRemovedReply,
  MuteGroupMemberRequest,
  SetGroupAdminRequest,
  UpdateGroupRequest,
} from '../../../../src/contract/index.js';
import type { ApiTransport } from './transport.js';

/**
 * The SDK endpoints for groups, members, roles and invitations (capability `groups`). Every
 * call on a group answers 1209 unless the user is a current member of a live group (existence
 * does not leak), 1218 when the operator disabled it, and 1209 when the user's role does not
 * allow the operation. Lists page by `cursor`, 50 items a page.
 *
 * Each change also arrives as a `group.*` event on every member's devices, this user's included;
 * the replies' `event_id` is left for those events, and is null when nothing changed.
 */
export class GroupsApi {
  /** @hidden */
  constructor(private readonly transport: ApiTransport) {}

  /**
   * Creates a group owned by this user, with its conversation (`group_` + `group_id`).
   * `group_id` is generated when absent (a taken one is 1004); an unknown member is 1204.
   */
  create(request: CreateGroupRequest): Promise<GroupChangeReply> {
    return this.transport.post<GroupChangeReply>('/app/sdk/groups/create', request);
  }

  /** One group, with this user's role. */
  get(groupId: string): Promise<GroupEnvelopeReply> {
    const query: GroupRefRequest = { group_id: groupId };
    return this.transport.get<GroupEnvelopeReply>('/app/sdk/groups/get', { ...query });
  }

  /** This user's current groups (disabled ones left out), in the order they were first joined. */
  list(query: ListQuery = {}): Promise<GroupPageReply> {
    return this.transport.get<GroupPageReply>('/app/sdk/groups', { ...query });
  }

  /** Changes the name, avatar or introduction (owner or admin). */
  update(groupId: string, changes: Omit<UpdateGroupRequest, 'group_id'>): Promise<GroupChangeReply> {
    const body: UpdateGroupRequest = { ...changes, group_id: groupId };
    return this.transport.post<GroupChangeReply>('/app/sdk/groups/update', body);
  }

  /** The current members with their role and mute state; any member may list them. */
  members(groupId: string, options: ListQuery = {}): Promise<GroupMemberPageReply> {
    const query: GroupMembersQuery = { ...options, group_id: groupId };
    return this.transport.get<GroupMemberPageReply>('/app/sdk/groups/members', { ...query });
  }

  /**
   * Adds 1–100 users (owner or admin); current members are skipped (`added` names who was
   * added), former members come back as plain members. A user who does not exist or is disabled is 1204.
   */
  addMembers(groupId: string, userIds: string[]): Promise<MembersAddedReply> {
    const body: GroupMembersChangeRequest = { group_id: groupId, user_ids: userIds };
    return this.transport.post<MembersAddedReply>('/app/sdk/groups/members/add', body);
  }

  /**
   * Removes 1–100 members, all or none: the owner removes admins and members, an admin members
   * only; never the owner or oneself (leave instead).
   */
  removeMembers(groupId: string, userIds: string[]): Promise<MembersRemovedReply> {
    const body: GroupMembersChangeRequest = { group_id: groupId, user_ids: userIds };
    return this.transport.post<MembersRemovedReply>('/app/sdk/groups/members/remove', body);
  }

  /** Leaves the group. The owner must transfer it first (1209). */
  leave(groupId: string): Promise<GroupLeaveReply> {
    const body: GroupRefRequest = { group_id: groupId };
    return this.transport.post<GroupLeaveReply>('/app/sdk/groups/leave', body);
  }

  /** Makes a member an admin (`true`) or a plain member again (`false`); owner only. */
  setAdmin(groupId: string, userId: string, admin: boolean): Promise<MemberRoleReply> {
    const body: SetGroupAdminRequest = { group_id: groupId, user_id: userId, admin };
    return this.transport.post<MemberRoleReply>('/app/sdk/groups/admins/set', body);
  }

  /** Transfers ownership to a current member (owner only); the old owner becomes an admin. */
  transfer(groupId: string, userId: string): Promise<GroupChangeReply> {
    const body: GroupMemberRefRequest = { group_id: groupId, user_id: userId };
    return this.transport.post<GroupChangeReply>('/app/sdk/groups/transfer', body);
  }

  /** Dismisses the group (owner only): every membership ends, and every later call on it is 1209. */
  dismiss(groupId: string): Promise<GroupDismissReply> {
    const body: GroupRefRequest = { group_id: groupId };
    return this.transport.post<GroupDismissReply>('/app/sdk/groups/dismiss', body);
  }

  /**
   * Mutes a member for `durationSeconds` (up to 30 days; 0 unmutes): a muted member cannot send
   * until `muted_until`. Owner or admin; an admin cannot mute the owner or another admin.
   */
  muteMember(groupId: string, userId: string, durationSeconds: number): Promise<MemberMuteReply> {
    const body: MuteGroupMemberRequest = { group_id: groupId, user_id: userId, duration_seconds: durationSeconds };
    return this.transport.post<MemberMuteReply>('/app/sdk/groups/members/mute', body);
  }

  /**
   * Makes an invitation code (owner or admin), valid `ttl_seconds` (from 60 to the service's
   * maximum, which is the default). Anyone with the code can {@link join}.
   */
  createInvitation(groupId: string, options: Omit<CreateInvitationRequest, 'group_id'> = {}): Promise<InvitationReply> {
    const body: CreateInvitationRequest = { ...options, group_id: groupId };
    return this.transport.post<InvitationReply>('/app/sdk/groups/invitations/create', body);
  }

  /**
   * Joins a group with an invitation code. 1210 when the code is unknown, expired or revoked, or
   * the group was dismissed; already a member answers the group with `event_id` null.
   */
  join(code: string): Promise<GroupChangeReply> {
    const body: JoinGroupRequest = { code };
    return this.transport.post<GroupChangeReply>('/app/sdk/groups/join', body);
  }
}
