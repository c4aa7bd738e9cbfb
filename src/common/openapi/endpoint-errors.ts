import { ErrorCode } from '../error-code';

/**
 * The business codes each endpoint can answer, in one table, so that the document's lists are
 * reviewed in one place against what the guards and services throw. A list is the groups of
 * what stands in front of the handler (guards, pipes, middleware) plus the codes of its service.
 */
type Codes = readonly ErrorCode[];

const {
  SDK_SECRET_INVALID,
  SDK_DISABLED,
  USER_DISABLED,
  INVALID_PARAMETER,
  TOO_FAST,
  TOKEN_MISSING,
  TOKEN_INVALID,
  TOKEN_EXPIRED,
  CONVERSATION_INACCESSIBLE,
  CAPABILITY_CLOSED,
  SEND_FORBIDDEN,
  PROFILE_INACCESSIBLE,
  REQUEST_INACCESSIBLE,
  ALREADY_FRIENDS,
  MESSAGE_ABSENT,
  RECALL_FORBIDDEN,
  GROUP_OPERATION_FORBIDDEN,
  INVITATION_INVALID,
  RELATIONSHIP_RESTRICTED,
  CALL_DISABLED,
  CALL_NOT_FOUND,
  CALL_NO_PERMISSION,
  CALL_STATE_CONFLICT,
  CALL_DEVICE_CONFLICT,
  GROUP_DISABLED,
  INTERNAL,
} = ErrorCode;

/**
 * Every route: page/offset/limit and unreadable bodies are refused by middleware (1004), and a
 * fault or a database that does not answer is 1500.
 */
const ANY: Codes = [INVALID_PARAMETER, INTERNAL];
/** SecretGuard; two Authorization headers are refused as an invalid credential (1102). */
const HOST: Codes = [...ANY, SDK_SECRET_INVALID, TOKEN_INVALID];
/** ImTokenGuard; SDK_ENABLED=false answers 1002 to every IM token. */
const SDK: Codes = [...ANY, SDK_DISABLED, USER_DISABLED, TOKEN_MISSING, TOKEN_INVALID, TOKEN_EXPIRED];
/** RateLimitGuard with @RateLimited. */
const LIMITED: Codes = [TOO_FAST];
/** @RequiresCapability: the operator closed the capability. */
const CLOSABLE: Codes = [CAPABILITY_CLOSED];

/** Every group endpoint that names a group: not a current member, dismissed, role (1209); disabled (1218). */
const GROUP: Codes = [...SDK, ...CLOSABLE, GROUP_OPERATION_FORBIDDEN, GROUP_DISABLED];
const FRIENDS: Codes = [...SDK, ...CLOSABLE];
const CALLS: Codes = [...SDK, ...CLOSABLE];
/** A change of one call: not a call of the user's (1214), not theirs to make (1215), not in this state (1216). */
const CALL_CHANGE: Codes = [...CALLS, CALL_NOT_FOUND, CALL_NO_PERMISSION, CALL_STATE_CONFLICT];
/** Anything naming a conversation by the viewer's ID (ConversationAccessService). */
const CONVERSATION: Codes = [...SDK, CONVERSATION_INACCESSIBLE];
/** Evidence in a report: a conversation and messages the reporter can see. */
const REPORT: Codes = [...SDK, ...LIMITED, CONVERSATION_INACCESSIBLE, MESSAGE_ABSENT];

/**
 * AdminGuard: no console session is HTTP 401 with 1101, an unknown, expired or disabled one
 * HTTP 401 with 1102; a role too low or a write failing the CSRF checks is HTTP 403 with 1004.
 */
const ADMIN: Codes = [...ANY, TOKEN_MISSING, TOKEN_INVALID];

/**
 * HostSessionGuard: no PHPSID is HTTP 401 with 1101, a malformed, unknown or expired one HTTP 401
 * with 1102; a write failing the origin check is HTTP 403 with 1004. Limits answer HTTP 429 with 1005.
 */
const HOST_SESSION: Codes = [...ANY, TOKEN_MISSING, TOKEN_INVALID];

/** The server API (/app/server): SecretGuard and the per-host `server_api` limit. */
const SERVER: Codes = [...HOST, TOO_FAST];
/** A server API write that names a group: absent, dismissed or a rule of the owner's (1209); disabled (1218). */
const SERVER_GROUP: Codes = [...SERVER, GROUP_OPERATION_FORBIDDEN, GROUP_DISABLED];
/** A server API message: no such conversation or not a member (1201), may not post (1203), group disabled (1218). */
const SERVER_MESSAGE: Codes = [...SERVER, CONVERSATION_INACCESSIBLE, SEND_FORBIDDEN, GROUP_DISABLED];

/** By controller, then handler name. */
export const ENDPOINT_ERRORS = {
  serverApi: {
    send: SERVER_MESSAGE,
    notice: SERVER_MESSAGE,
    listMessages: [...SERVER, CONVERSATION_INACCESSIBLE],
    listConversations: SERVER,
    createGroup: SERVER,
    updateGroup: SERVER_GROUP,
    addMembers: SERVER_GROUP,
    removeMembers: SERVER_GROUP,
    setRole: SERVER_GROUP,
    dismissGroup: SERVER_GROUP,
    addFriend: [...SERVER, ALREADY_FRIENDS, RELATIONSHIP_RESTRICTED],
    deleteFriend: [...SERVER, PROFILE_INACCESSIBLE],
  },
  health: {
    live: ANY,
    ready: ANY,
  },
  host: {
    issueToken: [...HOST, USER_DISABLED],
    upsertUser: HOST,
    setStatus: [...HOST, PROFILE_INACCESSIBLE],
    revokeTokens: [...HOST, PROFILE_INACCESSIBLE],
  },
  presence: {
    query: FRIENDS,
  },
  /** Server API: user erasure and export (SecretGuard, then the server_api limit). */
  serverUsers: {
    erase: [...HOST, ...LIMITED],
    export: [...HOST, ...LIMITED, PROFILE_INACCESSIBLE],
  },
  profile: {
    me: SDK,
    update: SDK,
    profile: [...SDK, PROFILE_INACCESSIBLE],
    lookup: [...SDK, PROFILE_INACCESSIBLE],
  },
  friendRequests: {
    send: [...FRIENDS, ...LIMITED, PROFILE_INACCESSIBLE, ALREADY_FRIENDS, RELATIONSHIP_RESTRICTED],
    list: FRIENDS,
    accept: [...FRIENDS, REQUEST_INACCESSIBLE, ALREADY_FRIENDS, RELATIONSHIP_RESTRICTED],
    reject: [...FRIENDS, REQUEST_INACCESSIBLE],
  },
  friends: {
    list: FRIENDS,
    remove: [...FRIENDS, PROFILE_INACCESSIBLE],
  },
  blocks: {
    block: [...FRIENDS, PROFILE_INACCESSIBLE],
    unblock: [...FRIENDS, PROFILE_INACCESSIBLE],
    list: FRIENDS,
  },
  groups: {
    create: [...SDK, ...CLOSABLE, PROFILE_INACCESSIBLE],
    get: GROUP,
    list: [...SDK, ...CLOSABLE],
    update: GROUP,
    listMembers: GROUP,
    addMembers: [...GROUP, PROFILE_INACCESSIBLE],
    removeMembers: [...GROUP, PROFILE_INACCESSIBLE],
    leave: GROUP,
    setAdmin: [...GROUP, PROFILE_INACCESSIBLE],
    transfer: [...GROUP, PROFILE_INACCESSIBLE],
    dismiss: GROUP,
    mute: [...GROUP, PROFILE_INACCESSIBLE],
    createInvitation: GROUP,
    join: [...SDK, ...CLOSABLE, INVITATION_INVALID, GROUP_DISABLED],
  },
  media: {
    upload: [...SDK, ...CLOSABLE, ...LIMITED],
    download: [...SDK, ...CLOSABLE, MESSAGE_ABSENT],
  },
  messages: {
    list: [...CONVERSATION, MESSAGE_ABSENT],
    send: [...CONVERSATION, ...LIMITED, SEND_FORBIDDEN, GROUP_DISABLED],
    recall: [...CONVERSATION, MESSAGE_ABSENT, RECALL_FORBIDDEN],
    delete: [...CONVERSATION, MESSAGE_ABSENT, RECALL_FORBIDDEN],
    read: CONVERSATION,
    search: [...CONVERSATION, ...CLOSABLE],
  },
  sync: {
    syncHome: SDK,
    unread: SDK,
    pin: CONVERSATION,
    mute: CONVERSATION,
    hide: CONVERSATION,
  },
  clientErrors: {
    report: [...SDK, ...LIMITED],
  },
  reports: {
    reportGroup: [...REPORT, GROUP_OPERATION_FORBIDDEN, GROUP_DISABLED],
    reportUser: [...REPORT, PROFILE_INACCESSIBLE],
  },
  calls: {
    start: [
      ...CALLS,
      CONVERSATION_INACCESSIBLE,
      SEND_FORBIDDEN,
      GROUP_DISABLED,
      CALL_DISABLED,
      CALL_STATE_CONFLICT,
      CALL_DEVICE_CONFLICT,
      // Joining a live group call that ends before the join locks it.
      CALL_NOT_FOUND,
    ],
    ringing: CALL_CHANGE,
    accept: [...CALL_CHANGE, CALL_DEVICE_CONFLICT],
    reject: CALL_CHANGE,
    cancel: CALL_CHANGE,
    hangup: [...CALLS, CALL_NOT_FOUND, CALL_STATE_CONFLICT],
    credentials: [...CALLS, CALL_NOT_FOUND, CALL_STATE_CONFLICT],
    get: [...CALLS, CALL_NOT_FOUND],
    active: CALLS,
  },
  hostApp: {
    sendSms: [...ANY, TOO_FAST],
    signup: ANY,
    // A wrong password or code, an unknown number and a locked account alike: HTTP 401 with 1102.
    login: [...ANY, TOKEN_INVALID, TOO_FAST],
    loginWithCode: [...ANY, TOKEN_INVALID, TOO_FAST],
    resetPassword: ANY,
    logout: HOST_SESSION,
    me: HOST_SESSION,
    changePassword: HOST_SESSION,
    token: [...HOST_SESSION, USER_DISABLED],
    smsInbox: ANY,
  },
  adminAuth: {
    // A wrong, unknown, disabled or rate-limited login alike: HTTP 401 with 1102.
    login: [...ANY, TOKEN_INVALID],
    logout: ADMIN,
    me: ADMIN,
    changePassword: ADMIN,
    totpSetup: ADMIN,
    totpEnable: ADMIN,
    totpDisable: ADMIN,
    setLocale: ADMIN,
  },
  adminAccounts: {
    list: ADMIN,
    create: ADMIN,
    update: ADMIN,
    remove: ADMIN,
    audit: ADMIN,
  },
  adminReports: {
    list: ADMIN,
    detail: ADMIN,
    transition: ADMIN,
    /** What the action's own endpoint answers: no such user (1204), group (1209) or message (1207). */
    act: [...ADMIN, PROFILE_INACCESSIBLE, GROUP_OPERATION_FORBIDDEN, MESSAGE_ABSENT, RECALL_FORBIDDEN],
    /** The reporter no longer sees the conversation (1201) or the message (1207). */
    context: [...ADMIN, CONVERSATION_INACCESSIBLE, MESSAGE_ABSENT],
    targets: ADMIN,
  },
  adminClientErrors: {
    groups: ADMIN,
    group: ADMIN,
    occurrences: ADMIN,
  },
  adminInsights: {
    clientErrorDetail: ADMIN,
    dashboard: ADMIN,
    analytics: ADMIN,
  },
  adminUsers: {
    search: ADMIN,
    detail: [...ADMIN, PROFILE_INACCESSIBLE],
    /** 1003: enabling an erased user. */
    setStatus: [...ADMIN, PROFILE_INACCESSIBLE, USER_DISABLED],
    forceLogout: [...ADMIN, PROFILE_INACCESSIBLE],
    overview: [...ADMIN, PROFILE_INACCESSIBLE],
    export: ADMIN,
    editProfile: [...ADMIN, PROFILE_INACCESSIBLE, CAPABILITY_CLOSED],
  },
  adminGroups: {
    search: ADMIN,
    overview: [...ADMIN, GROUP_OPERATION_FORBIDDEN],
    export: ADMIN,
    members: [...ADMIN, GROUP_OPERATION_FORBIDDEN],
    setStatus: [...ADMIN, GROUP_OPERATION_FORBIDDEN],
    dismiss: [...ADMIN, GROUP_OPERATION_FORBIDDEN],
  },
  /** No such user (1204); no such group, dismissed, not a member, or the owner named (1209). */
  adminGroupMembers: {
    mute: [...ADMIN, PROFILE_INACCESSIBLE, GROUP_OPERATION_FORBIDDEN],
    remove: [...ADMIN, PROFILE_INACCESSIBLE, GROUP_OPERATION_FORBIDDEN],
    transfer: [...ADMIN, PROFILE_INACCESSIBLE, GROUP_OPERATION_FORBIDDEN],
  },
  /** No such conversation (1201); a message not in it (1207). */
  adminMessages: {
    recall: [...ADMIN, CONVERSATION_INACCESSIBLE, MESSAGE_ABSENT],
    delete: [...ADMIN, CONVERSATION_INACCESSIBLE, MESSAGE_ABSENT],
  },
  adminSettings: {
    get: ADMIN,
    update: ADMIN,
    reset: ADMIN,
    stageCallbackKey: ADMIN,
    promoteCallbackKey: ADMIN,
    cancelCallbackKey: ADMIN,
  },
  push: {
    register: SDK,
    unregister: SDK,
    settings: SDK,
    setSettings: SDK,
  },
  /** The console's push page: status (any role), a test send (owner; 1204 for an unknown user). */
  adminPush: {
    status: ADMIN,
    test: [...ADMIN, PROFILE_INACCESSIBLE],
  },
  adminWebhooks: {
    list: ADMIN,
    create: ADMIN,
    update: ADMIN,
    change: ADMIN,
    deliveries: ADMIN,
    replay: ADMIN,
  },
} as const satisfies Record<string, Record<string, Codes>>;
