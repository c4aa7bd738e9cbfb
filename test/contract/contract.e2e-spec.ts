// The wire contract (src/contract) against its three users. The type-level checks below fail to
// compile when a server reply class, a Web SDK type or a type the tests use drifts from the
// contract (a field added, dropped, made optional or retyped on either side); `npm run lint`
// compiles them, and the first test compiles this file too, so the test run fails as well.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileProblems } from '../helpers/type-check';
import type * as contract from '../../src/contract';
import type { ClientErrorReply } from '../../src/client-errors/client-errors.reply';
import type { TokenReply, UserStatusReply } from '../../src/auth/auth.reply';
import type { UserErasureCountsReply, UserErasureReply } from '../../src/server-api/user-erasure.reply';
import type { UserExportReply } from '../../src/server-api/user-export.reply';
import type { ServerMessagePageReply } from '../../src/server-api/server-api.reply';
import type {
  CallActionReply,
  CallListReply,
  CallParticipantReply,
  CallReply,
  RtcCredentialsReply,
} from '../../src/calls/call.mapper';
import type { BlockReply, FriendReply, FriendRequestReply } from '../../src/friends/friend.mapper';
import type {
  AcceptFriendRequestReply,
  BlockPageReply,
  BlockStateReply,
  EventReply,
  FriendPageReply,
  FriendRequestPageReply,
  RejectFriendRequestReply,
  SendFriendRequestReply,
} from '../../src/friends/friends.reply';
import type { GroupMemberReply, GroupReply, GroupSummary } from '../../src/groups/group.mapper';
import type {
  GroupChangeReply,
  GroupDismissReply,
  GroupEnvelopeReply,
  GroupLeaveReply,
  GroupMemberPageReply,
  GroupPageReply,
  InvitationReply,
  MemberMuteReply,
  MemberRoleReply,
  MembersAddedReply,
  MembersRemovedReply,
} from '../../src/groups/groups.reply';
import type { MediaLimits } from '../../src/media/media-limits';
import type { MediaReply, MediaUploadReply } from '../../src/media/media.mapper';
import type { MessageReply } from '../../src/messages/message.mapper';
import type {
  MessageChangeReply,
  MessageWindowReply,
  ReadReply,
  SearchPageReply,
  SendReply,
} from '../../src/messages/messages.reply';
import type { ProfileUpdateReply } from '../../src/profile/profile.reply';
import type {
  PushRegistrationReplyDto,
  PushSettingsReplyDto,
  PushStatusReplyDto,
  PushTestReplyDto,
  PushUnregisterReplyDto,
} from '../../src/push/push.reply';
import type { ReportReply } from '../../src/reports/report.mapper';
import type { ConversationItem } from '../../src/sync/conversation-item';
import type {
  CapabilitiesReply,
  ConversationPageReply,
  SettingsReply,
  SyncReply,
  UnreadEntryReply,
  UnreadReply,
  UnreadTotalsReply,
} from '../../src/sync/sync.reply';
import type { ProfileReply, UserReply } from '../../src/users/user.mapper';
import type * as sdk from '../../sdk/web/src/index';
import type * as wire from '../helpers/api-types';

/**
 * true when A and B are the same type: each assignable to the other, with the same optional and
 * readonly fields, all the way down (an extra or a missing field on either side is a difference).
 */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** true when every A is a B: for the SDK's views that read part of a reply. */
type Fits<A, B> = [A] extends [B] ? true : false;
type Expect<T extends true> = T;

/** The server's reply classes (which carry the OpenAPI document's schemas) are the contract's types. */
export type ServerReplies = [
  Expect<Same<UserReply, contract.UserReply>>,
  Expect<Same<ProfileReply, contract.ProfileReply>>,
  Expect<Same<ProfileUpdateReply, contract.ProfileUpdateReply>>,
  Expect<Same<TokenReply, contract.TokenReply>>,
  Expect<Same<UserStatusReply, contract.UserStatusReply>>,
  Expect<Same<UserErasureReply, contract.UserErasureReply>>,
  Expect<Same<UserErasureCountsReply, contract.UserErasureCounts>>,
  Expect<Same<UserExportReply, contract.UserExportReply>>,
  Expect<Same<ServerMessagePageReply, contract.ServerMessagePageReply>>,
  Expect<Same<MessageReply, contract.MessageReply>>,
  Expect<Same<PushRegistrationReplyDto, contract.PushRegistrationReply>>,
  Expect<Same<PushUnregisterReplyDto, contract.PushUnregisterReply>>,
  Expect<Same<PushSettingsReplyDto, contract.PushSettingsReply>>,
  Expect<Same<PushStatusReplyDto, contract.PushStatusReply>>,
  Expect<Same<PushTestReplyDto, contract.PushTestReply>>,
  Expect<Same<SendReply, contract.SendReply>>,
  Expect<Same<MessageChangeReply, contract.MessageChangeReply>>,
  Expect<Same<ReadReply, contract.ReadReply>>,
  Expect<Same<MessageWindowReply, contract.MessageWindowReply>>,
  Expect<Same<SearchPageReply, contract.SearchPageReply>>,
  Expect<Same<ConversationItem, contract.ConversationItem>>,
  Expect<Same<ConversationPageReply, contract.ConversationPageReply>>,
  Expect<Same<SettingsReply, contract.SettingsReply>>,
  Expect<Same<UnreadTotalsReply, contract.UnreadTotals>>,
  Expect<Same<CapabilitiesReply, contract.Capabilities>>,
  Expect<Same<MediaLimits, contract.MediaLimits>>,
  Expect<Same<SyncReply, contract.SyncReply>>,
  Expect<Same<UnreadEntryReply, contract.UnreadEntryReply>>,
  Expect<Same<UnreadReply, contract.UnreadReply>>,
  Expect<Same<MediaReply, contract.MediaReply>>,
  Expect<Same<MediaUploadReply, contract.MediaUploadReply>>,
  Expect<Same<FriendRequestReply, contract.FriendRequestReply>>,
  Expect<Same<FriendReply, contract.FriendReply>>,
  Expect<Same<BlockReply, contract.BlockReply>>,
  Expect<Same<SendFriendRequestReply, contract.SendFriendRequestReply>>,
  Expect<Same<AcceptFriendRequestReply, contract.AcceptFriendRequestReply>>,
  Expect<Same<RejectFriendRequestReply, contract.RejectFriendRequestReply>>,
  Expect<Same<EventReply, contract.EventReply>>,
  Expect<Same<BlockStateReply, contract.BlockStateReply>>,
  Expect<Same<FriendRequestPageReply, contract.FriendRequestPageReply>>,
  Expect<Same<FriendPageReply, contract.FriendPageReply>>,
  Expect<Same<BlockPageReply, contract.BlockPageReply>>,
  Expect<Same<GroupSummary, contract.GroupSummary>>,
  Expect<Same<GroupReply, contract.GroupReply>>,
  Expect<Same<GroupMemberReply, contract.GroupMemberReply>>,
  Expect<Same<GroupEnvelopeReply, contract.GroupEnvelopeReply>>,
  Expect<Same<GroupChangeReply, contract.GroupChangeReply>>,
  Expect<Same<GroupPageReply, contract.GroupPageReply>>,
  Expect<Same<GroupMemberPageReply, contract.GroupMemberPageReply>>,
  Expect<Same<MembersAddedReply, contract.MembersAddedReply>>,
  Expect<Same<MembersRemovedReply, contract.MembersRemovedReply>>,
  Expect<Same<GroupLeaveReply, contract.GroupLeaveReply>>,
  Expect<Same<GroupDismissReply, contract.GroupDismissReply>>,
  Expect<Same<MemberRoleReply, contract.MemberRoleReply>>,
  Expect<Same<MemberMuteReply, contract.MemberMuteReply>>,
  Expect<Same<InvitationReply, contract.InvitationReply>>,
  Expect<Same<CallParticipantReply, contract.CallParticipantReply>>,
  Expect<Same<CallReply, contract.CallReply>>,
  Expect<Same<RtcCredentialsReply, contract.RtcCredentialsReply>>,
  Expect<Same<CallActionReply, contract.CallActionReply>>,
  Expect<Same<CallListReply, contract.CallListReply>>,
  Expect<Same<ReportReply, contract.ReportReply>>,
  Expect<Same<ClientErrorReply, contract.ClientErrorReply>>,
];

/** The Web SDK's public types are the contract's, and its partial views accept every reply. */
export type SdkTypes = [
  Expect<Same<sdk.ImMessage, contract.MessageReply>>,
  Expect<Same<sdk.WindowReply, contract.MessageWindowReply>>,
  Expect<Same<sdk.ReadReply, contract.ReadReply>>,
  Expect<Same<sdk.ReadyInfo, contract.ConnectionReady>>,
  Expect<Same<sdk.ServerEvent, contract.EventEnvelope<string, Record<string, unknown>>>>,
  Expect<Same<sdk.UnreadTotals, contract.UnreadTotals>>,
  Expect<Same<sdk.Contract.SyncReply, contract.SyncReply>>,
  Expect<Fits<contract.SyncReply, sdk.SyncPage>>,
  Expect<Fits<contract.ServerEventEnvelope, sdk.ServerEvent<unknown>>>,
  Expect<Same<Awaited<ReturnType<sdk.ImClient['messages']['send']>>, contract.SendReply>>,
  Expect<Same<Awaited<ReturnType<sdk.ImClient['messages']['recall']>>, contract.MessageChangeReply>>,
  Expect<Same<Awaited<ReturnType<sdk.ImClient['media']['upload']>>, contract.MediaUploadReply>>,
];

/** The names the e2e specs read replies through are the contract's. */
export type TestTypes = [
  Expect<Same<wire.UserObj, contract.UserReply>>,
  Expect<Same<wire.Msg, contract.MessageReply>>,
  Expect<Same<wire.MessageWindow, contract.MessageWindowReply>>,
  Expect<Same<wire.SyncItem, contract.ConversationItem>>,
  Expect<Same<wire.SyncData, contract.SyncReply>>,
  Expect<Same<wire.Group, contract.GroupReply>>,
  Expect<Same<wire.Media, contract.MediaReply>>,
];

const root = join(__dirname, '..', '..');

describe('wire contract (src/contract)', () => {
  // Type-checking this file loads the server's reply classes and their imports: seconds, not milliseconds.
  it('the type-level checks of this file compile: no reply class, SDK type or test type drifted', () => {
    const problems = compileProblems(__filename);
    expect(problems).toEqual([]);
  }, 180_000);

  it('src/contract imports nothing but itself (no framework, no server module)', () => {
    const dir = join(root, 'src', 'contract');
    const outside = readdirSync(dir)
      .filter((name) => name.endsWith('.ts'))
      .flatMap((name) =>
        [...readFileSync(join(dir, name), 'utf8').matchAll(/\bfrom\s+'([^']+)'/g)]
          .map((m) => m[1])
          .filter((spec) => !/^\.\/[a-z-]+\.js$/.test(spec))
          .map((spec) => `${name}: ${spec}`),
      );
    expect(outside).toEqual([]);
  });
});
