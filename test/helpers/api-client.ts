// One typed client for the host and SDK endpoints the e2e specs call. `api.raw.*` gives the
// supertest request (for tests that check codes, headers or status); the typed methods check the
// success envelope and return its data.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Response, Test } from 'supertest';
import { IssuedUser, TestApp, bearer, friendConversationId, hostAuth, issueUser, randomGroupId } from './test-app';
import type {
  Body,
  ConversationSetting,
  Download,
  Friend,
  FriendRequest,
  FriendRequestReply,
  Group,
  GroupMember,
  Media,
  MessageChangeReply,
  MessageWindow,
  Msg,
  Page,
  ReadReply,
  SearchPage,
  SendReply,
  SettingReply,
  SyncData,
  SyncItem,
  UnreadData,
  UnreadTotals,
  UploadOptions,
  UserObj,
  UserUpdateReply,
} from './api-types';
import { Reply, expectOk } from './assertions';
import { ReplyValidator } from './openapi-validator';

export * from './api-types';
export type { IssuedUser } from './test-app';

/** Whoever makes the call: an issued user, or anything holding an IM token. */
export interface Actor {
  token: string;
}

/** A user named by external ID. */
export interface UserRef {
  userId: string;
}

export type Query = Record<string, string>;

/** The one-to-one conversation ID with `peer`, as the other member sees it. */
export const friendCid = (peer: UserRef): string => friendConversationId(peer);
export const groupCid = (publicGroupId: string): string => `group_${publicGroupId}`;
/** A fresh client_message_id. */
export const cmid = (): string => `c-${randomBytes(8).toString('hex')}`;

/** A calibration with values no conversation has: always a reset to the latest window. */
export const STALE_TRIO: Query = { known_last_seq: '0', known_updated_at: '0', known_deletion_revision: '0' };

/** The calibration trio a client holding this window sends. */
export const trioOf = (w: { last_seq: string; updated_at: number; deletion_revision: number | string }): Query => ({
  known_last_seq: String(w.last_seq),
  known_updated_at: String(w.updated_at),
  known_deletion_revision: String(w.deletion_revision),
});

/** Reads any reply as bytes (superagent hands the raw response to a parser); JSON is parsed afterwards. */
export function binaryParser(res: Response, callback: (error: Error | null, body: Buffer) => void): void {
  const stream = res as unknown as IncomingMessage;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => callback(null, Buffer.concat(chunks)));
}

/** The requests themselves; each returns the supertest request, so callers may add headers. */
class RawApi {
  constructor(private readonly t: TestApp) {}

  private post(u: Actor, path: string, body: unknown): Test {
    return this.t.http
      .post(path)
      .set(...bearer(u.token))
      .send(body as Body);
  }

  private get(u: Actor, path: string, query: Body = {}): Test {
    return this.t.http
      .get(path)
      .set(...bearer(u.token))
      .query(query);
  }

  private host(path: string, body: unknown): Test {
    return this.t.http
      .post(path)
      .set(...hostAuth())
      .send(body as Body);
  }

  // host endpoints (SDK secret)
  token = (body: Body): Test => this.host('/app/sdk/token', body);
  upsertUser = (body: Body): Test => this.host('/app/sdk/users/upsert', body);
  userStatus = (userId: string, disabled: unknown): Test =>
    this.host('/app/sdk/users/status', { user_id: userId, disabled });
  revokeTokens = (userId: string): Test => this.host('/app/sdk/users/revoke-tokens', { user_id: userId });

  // messages
  send = (u: Actor, body: unknown): Test => this.post(u, '/app/sdk/messages/send', body);
  /** A text message with a fresh client_message_id, for specs that look at the refusal. */
  sendText = (u: Actor, conversationId: string, text: string): Test =>
    this.send(u, { conversation_id: conversationId, client_message_id: cmid(), type: 'text', content: { text } });
  recall = (u: Actor, conversationId: unknown, mid: unknown): Test =>
    this.post(u, '/app/sdk/messages/recall', { conversation_id: conversationId, mid });
  delete = (u: Actor, conversationId: unknown, mid: unknown): Test =>
    this.post(u, '/app/sdk/messages/delete', { conversation_id: conversationId, mid });
  read = (u: Actor, conversationId: unknown, readSeq: unknown): Test =>
    this.post(u, '/app/sdk/messages/read', { conversation_id: conversationId, read_seq: readSeq });
  messages = (u: Actor, query: Query): Test => this.get(u, '/app/sdk/messages', query);
  search = (u: Actor, query: Query): Test => this.get(u, '/app/sdk/messages/search', query);

  // sync, unread and conversation settings
  sync = (u: Actor, body: unknown = {}): Test => this.post(u, '/app/sdk/sync', body);
  unread = (u: Actor, query: Query = {}): Test => this.get(u, '/app/sdk/unread', query);
  setting = (u: Actor, what: ConversationSetting, body: unknown): Test =>
    this.post(u, `/app/sdk/conversations/${what}`, body);

  // friends
  friendRequest = (u: Actor, body: unknown): Test => this.post(u, '/app/sdk/friends/requests', body);
  acceptRequest = (u: Actor, id: unknown): Test => this.post(u, '/app/sdk/friends/requests/accept', { id });
  rejectRequest = (u: Actor, id: unknown): Test => this.post(u, '/app/sdk/friends/requests/reject', { id });
  friendRequests = (u: Actor, query: Query): Test => this.get(u, '/app/sdk/friends/requests', query);
  friends = (u: Actor, query: Query = {}): Test => this.get(u, '/app/sdk/friends', query);
  unfriend = (u: Actor, userId: unknown): Test => this.post(u, '/app/sdk/friends/delete', { user_id: userId });
  block = (u: Actor, userId: unknown): Test => this.post(u, '/app/sdk/friends/block', { user_id: userId });
  unblock = (u: Actor, userId: unknown): Test => this.post(u, '/app/sdk/friends/unblock', { user_id: userId });
  blocks = (u: Actor, query: Query = {}): Test => this.get(u, '/app/sdk/friends/blocks', query);

  // groups: `path` is the part after /app/sdk/groups ('' lists my groups)
  groupPost = (u: Actor, path: string, body: unknown): Test => this.post(u, `/app/sdk/groups${path}`, body);
  groupGet = (u: Actor, path: string, query: Body = {}): Test => this.get(u, `/app/sdk/groups${path}`, query);

  // profile
  me = (u: Actor): Test => this.get(u, '/app/sdk/users/me');
  updateMe = (u: Actor, body: unknown): Test => this.post(u, '/app/sdk/users/me/update', body);
  /** By user ID, or with the query as given (which may leave user_id out). */
  profile = (u: Actor, userId: string | Query): Test =>
    this.get(u, '/app/sdk/users/profile', typeof userId === 'string' ? { user_id: userId } : userId);
  /** By username, or with the query as given (which may leave username out). */
  lookup = (u: Actor, username: string | Query): Test =>
    this.get(u, '/app/sdk/users/lookup', typeof username === 'string' ? { username } : username);

  // media
  upload = (u: Actor, data: Buffer, options: UploadOptions = {}): Test => {
    const req = this.t.http.post('/app/sdk/media/upload').set(...bearer(u.token));
    if (options.kind !== undefined && !options.kindAfterFile) void req.field('kind', options.kind);
    void req.attach('file', data, {
      filename: options.filename ?? 'upload.bin',
      contentType: options.contentType ?? 'application/octet-stream',
    });
    if (options.kind !== undefined && options.kindAfterFile) void req.field('kind', options.kind);
    return req;
  };

  // reports and client errors
  reportUser = (u: Actor, body: unknown): Test => this.post(u, '/app/sdk/reports/user', body);
  reportGroup = (u: Actor, body: unknown): Test => this.post(u, '/app/sdk/reports/group', body);
  clientError = (u: Actor, body: unknown): Test => this.post(u, '/app/sdk/client-errors', body);
}

export class ApiClient {
  readonly raw: RawApi;
  private replies: Promise<ReplyValidator> | null = null;

  constructor(private readonly t: TestApp) {
    this.raw = new RawApi(t);
  }

  /**
   * expectOk, and the reply checked against the served OpenAPI document (strictly: no
   * undocumented field, every documented one present), so every spec using the typed methods
   * also keeps the document true.
   */
  private async ok<T>(response: Reply): Promise<T> {
    const data = expectOk<T>(response);
    const request = (response as { req?: { method?: string; path?: string } }).req;
    if (request?.method && request.path) {
      this.replies ??= ReplyValidator.load(this.t);
      const replies = await this.replies;
      const found = replies.operationOf(request.method, request.path);
      if (!found) throw new Error(`${request.method} ${request.path} is not in /openapi.json`);
      replies.assertMatches(found.key, found.operation, response.status, response.body);
    }
    return data;
  }

  /** Issues a token for a fresh (or the given) user through the host endpoint. */
  user(fields: Record<string, unknown> = {}): Promise<IssuedUser> {
    return issueUser(this.t, fields);
  }

  users(n: number): Promise<IssuedUser[]> {
    return Promise.all(Array.from({ length: n }, () => issueUser(this.t)));
  }

  // ---------- messages ----------

  async send(u: Actor, conversationId: string, text: string, clientMessageId = cmid()): Promise<SendReply> {
    return await this.ok<SendReply>(
      await this.raw.send(u, {
        conversation_id: conversationId,
        client_message_id: clientMessageId,
        type: 'text',
        content: { text },
      }),
    );
  }

  /** `count` text messages "<prefix> 1".."<prefix> count", one after another. */
  async sendMany(u: Actor, conversationId: string, count: number, prefix = 'msg'): Promise<Msg[]> {
    const out: Msg[] = [];
    for (let i = 1; i <= count; i += 1) out.push((await this.send(u, conversationId, `${prefix} ${i}`)).message);
    return out;
  }

  async recall(u: Actor, conversationId: string, mid: string): Promise<MessageChangeReply> {
    return await this.ok<MessageChangeReply>(await this.raw.recall(u, conversationId, mid));
  }

  async deleteMessage(u: Actor, conversationId: string, mid: string): Promise<MessageChangeReply> {
    return await this.ok<MessageChangeReply>(await this.raw.delete(u, conversationId, mid));
  }

  async read(u: Actor, conversationId: string, readSeq: string): Promise<ReadReply> {
    return await this.ok<ReadReply>(await this.raw.read(u, conversationId, readSeq));
  }

  async window(u: Actor, conversationId: string, query: Query): Promise<MessageWindow> {
    return await this.ok<MessageWindow>(await this.raw.messages(u, { conversation_id: conversationId, ...query }));
  }

  /** A calibration read with deliberately stale values: always a reset with the latest window. */
  latest(u: Actor, conversationId: string): Promise<MessageWindow> {
    return this.window(u, conversationId, STALE_TRIO);
  }

  async search(u: Actor, query: Query): Promise<SearchPage> {
    return await this.ok<SearchPage>(await this.raw.search(u, query));
  }

  /** Every search result, page after page, by before_mid or by cursor. */
  async searchAll(
    u: Actor,
    conversationId: string,
    keyword: string,
    by: 'before_mid' | 'cursor' = 'before_mid',
  ): Promise<Msg[]> {
    const out: Msg[] = [];
    let query: Query = { conversation_id: conversationId, keyword };
    for (let guard = 0; guard < 50; guard += 1) {
      const page = await this.search(u, query);
      out.push(...page.items);
      if (!page.has_more) break;
      query =
        by === 'cursor'
          ? { conversation_id: conversationId, keyword, cursor: page.next_cursor as string }
          : { conversation_id: conversationId, keyword, before_mid: page.next_before_mid as string };
    }
    return out;
  }

  // ---------- sync, unread, settings ----------

  async sync(u: Actor, body: Body = {}): Promise<SyncData> {
    return await this.ok<SyncData>(await this.raw.sync(u, body));
  }

  /** Every sync page (following next_cursor) and their items in order. */
  async syncPages(u: Actor): Promise<{ pages: SyncData[]; items: SyncItem[] }> {
    const pages = [await this.sync(u)];
    for (let guard = 0; pages[pages.length - 1].conversations.has_more && guard < 20; guard += 1) {
      pages.push(await this.sync(u, { cursor: pages[pages.length - 1].conversations.next_cursor }));
    }
    return { pages, items: pages.flatMap((p) => p.conversations.items) };
  }

  /** Every conversation sync lists, and the unread aggregate of the first page. */
  async syncAll(u: Actor): Promise<{ items: SyncItem[]; unread: UnreadTotals }> {
    const { pages, items } = await this.syncPages(u);
    return { items, unread: pages[0].unread };
  }

  async unread(u: Actor): Promise<UnreadData> {
    return await this.ok<UnreadData>(await this.raw.unread(u));
  }

  async setting(u: Actor, what: ConversationSetting, conversationId: string, value: boolean): Promise<SettingReply> {
    const field = { pin: 'pinned', mute: 'muted', hide: 'hidden' }[what];
    return await this.ok<SettingReply>(
      await this.raw.setting(u, what, { conversation_id: conversationId, [field]: value }),
    );
  }

  /**
   * A user's unread agrees everywhere: sync (every item and the aggregate), /unread (totals,
   * entries and their muted flags) and the window of each conversation named in `expected`.
   * `expected` lists every conversation with unread > 0 (all others must be 0); `muted` the muted ones.
   */
  async expectUnread(u: IssuedUser, expected: Record<string, number>, muted: string[] = []): Promise<void> {
    const user = u.userId;
    const want = Object.fromEntries(Object.entries(expected).filter(([, n]) => n > 0));
    const total = Object.values(want).reduce((a, b) => a + b, 0);
    const totalUnmuted = Object.entries(want)
      .filter(([id]) => !muted.includes(id))
      .reduce((a, [, n]) => a + n, 0);
    const { items, unread } = await this.syncAll(u);
    const seen: Record<string, number> = {};
    for (const item of items) if (item.unread !== 0) seen[item.conversation_id] = item.unread;
    expect({ user, via: 'sync items', unread: seen }).toEqual({ user, via: 'sync items', unread: want });
    expect({ user, via: 'sync aggregate', unread }).toEqual({
      user,
      via: 'sync aggregate',
      unread: { total, total_unmuted: totalUnmuted },
    });
    const badge = await this.unread(u);
    expect({ user, via: '/unread totals', total: badge.total, total_unmuted: badge.total_unmuted }).toEqual({
      user,
      via: '/unread totals',
      total,
      total_unmuted: totalUnmuted,
    });
    const listed: Record<string, number> = {};
    for (const entry of badge.conversations) if (entry.unread !== 0) listed[entry.conversation_id] = entry.unread;
    expect({ user, via: '/unread has_more', has_more: badge.has_more }).toEqual({
      user,
      via: '/unread has_more',
      has_more: false,
    });
    expect({ user, via: '/unread conversations', unread: listed }).toEqual({
      user,
      via: '/unread conversations',
      unread: want,
    });
    for (const e of badge.conversations)
      expect({ user, cid: e.conversation_id, muted: e.muted }).toEqual({
        user,
        cid: e.conversation_id,
        muted: muted.includes(e.conversation_id),
      });
    for (const [cid, n] of Object.entries(expected))
      expect({ user, via: 'window', cid, unread: (await this.latest(u, cid)).unread }).toEqual({
        user,
        via: 'window',
        cid,
        unread: n,
      });
  }

  // ---------- friends ----------

  /** Sends a friend request from `from` to `to` (a fresh request_id unless given). */
  async friendRequest(
    from: Actor,
    to: UserRef,
    fields: { message?: string; request_id?: string } = {},
  ): Promise<FriendRequestReply> {
    const body: Body = { user_id: to.userId, request_id: fields.request_id ?? `fr-${randomBytes(6).toString('hex')}` };
    if (fields.message !== undefined) body.message = fields.message;
    return await this.ok<FriendRequestReply>(await this.raw.friendRequest(from, body));
  }

  /** `a` asks, `b` accepts: friends, with their one-to-one conversation. */
  async befriend(a: Actor & UserRef, b: Actor & UserRef): Promise<void> {
    const { request } = await this.friendRequest(a, b);
    await this.ok(await this.raw.acceptRequest(b, request.id));
  }

  async friendRequests(u: Actor, direction: 'incoming' | 'outgoing', status?: string): Promise<FriendRequest[]> {
    return (
      await this.ok<Page<FriendRequest>>(
        await this.raw.friendRequests(u, status ? { direction, status } : { direction }),
      )
    ).items;
  }

  async friends(u: Actor, query: Query = {}): Promise<Page<Friend>> {
    return await this.ok<Page<Friend>>(await this.raw.friends(u, query));
  }

  async unfriend(u: Actor, peer: UserRef): Promise<void> {
    await this.ok(await this.raw.unfriend(u, peer.userId));
  }

  async block(u: Actor, peer: UserRef): Promise<void> {
    await this.ok(await this.raw.block(u, peer.userId));
  }

  async unblock(u: Actor, peer: UserRef): Promise<void> {
    await this.ok(await this.raw.unblock(u, peer.userId));
  }

  // ---------- groups ----------

  /** Creates a group owned by `owner` with `members`; returns its public group_id. */
  async createGroup(
    owner: Actor,
    members: UserRef[] = [],
    extra: Body = {},
    groupId = randomGroupId(),
  ): Promise<string> {
    await this.ok(
      await this.raw.groupPost(owner, '/create', {
        group_id: groupId,
        name: `G ${groupId}`,
        member_ids: members.map((m) => m.userId),
        ...extra,
      }),
    );
    return groupId;
  }

  async group(u: Actor, groupId: string): Promise<Group> {
    return (await this.ok<{ group: Group }>(await this.raw.groupGet(u, '/get', { group_id: groupId }))).group;
  }

  /** Every member's role, following the member list's pages (no user twice). */
  async groupRoles(u: Actor, groupId: string): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    let cursor: string | null = null;
    do {
      const q: Query = { group_id: groupId };
      if (cursor) q.cursor = cursor;
      const page: Page<GroupMember> = await this.ok<Page<GroupMember>>(await this.raw.groupGet(u, '/members', q));
      for (const m of page.items) {
        expect(out[m.user.user_id]).toBeUndefined(); // no duplicates across pages
        out[m.user.user_id] = m.role;
      }
      cursor = page.has_more ? page.next_cursor : null;
    } while (cursor);
    return out;
  }

  async myGroupIds(u: Actor): Promise<string[]> {
    return (await this.ok<Page<Group>>(await this.raw.groupGet(u, ''))).items.map((g) => g.group_id);
  }

  async addMembers(operator: Actor, groupId: string, users: UserRef[]): Promise<Body> {
    return await this.ok(
      await this.raw.groupPost(operator, '/members/add', { group_id: groupId, user_ids: users.map((u) => u.userId) }),
    );
  }

  async removeMembers(operator: Actor, groupId: string, users: UserRef[]): Promise<Body> {
    return await this.ok(
      await this.raw.groupPost(operator, '/members/remove', {
        group_id: groupId,
        user_ids: users.map((u) => u.userId),
      }),
    );
  }

  async leaveGroup(u: Actor, groupId: string): Promise<void> {
    await this.ok(await this.raw.groupPost(u, '/leave', { group_id: groupId }));
  }

  async setAdmin(operator: Actor, groupId: string, user: UserRef, admin: boolean): Promise<void> {
    await this.ok(
      await this.raw.groupPost(operator, '/admins/set', { group_id: groupId, user_id: user.userId, admin }),
    );
  }

  /** Mutes a member for `seconds` (0 unmutes). */
  async muteMember(operator: Actor, groupId: string, user: UserRef, seconds: number): Promise<void> {
    await this.ok(
      await this.raw.groupPost(operator, '/members/mute', {
        group_id: groupId,
        user_id: user.userId,
        duration_seconds: seconds,
      }),
    );
  }

  // ---------- profile and media ----------

  async me(u: Actor): Promise<UserObj> {
    return (await this.ok<{ user: UserObj }>(await this.raw.me(u))).user;
  }

  async updateMe(u: Actor, body: unknown): Promise<UserUpdateReply> {
    return await this.ok<UserUpdateReply>(await this.raw.updateMe(u, body));
  }

  async upload(u: Actor, data: Buffer, options: UploadOptions = {}): Promise<Media> {
    return (await this.ok<{ media: Media }>(await this.raw.upload(u, data, options))).media;
  }

  /** GET /app/sdk/media/:media_id (or a media url) as `u`, or without a token when `u` is null. */
  async download(u: Actor | null, mediaIdOrUrl: string): Promise<Download> {
    const req = this.t.http.get(mediaIdOrUrl.startsWith('/') ? mediaIdOrUrl : `/app/sdk/media/${mediaIdOrUrl}`);
    if (u) void req.set(...bearer(u.token));
    const response: Response = await req.buffer(true).parse(binaryParser);
    const bytes = response.body as Buffer;
    const json = String(response.headers['content-type'] ?? '').startsWith('application/json');
    return {
      status: response.status,
      headers: response.headers as Record<string, string>,
      bytes,
      body: json ? JSON.parse(bytes.toString('utf8')) : null,
    };
  }
}
