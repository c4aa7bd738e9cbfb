// Contract test (issue 13): real replies, from flows that reach every documented operation, are
// validated against the response schemas of the served /openapi.json. The schemas are made
// strict here: an object with documented properties takes no other property, and a documented
// property is required unless the document marks it optional; so a field added to or dropped
// from a reply without the document (or the other way round) fails. The envelope's `code` is
// an enum of 0 and the operation's documented error codes, so the error envelopes provoked
// below also check the endpoint's error list. Ends by asserting that every operation got at
// least one validated successful reply.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { JsonSchema, OpenApiDocument, Operation, ReplyValidator } from '../helpers/openapi-validator';
import { isolateCallTimers } from '../calls/call-helpers';
import { clientErrorReport } from '../helpers/client-error';
import { ADMIN_PASSWORD, createAdmin, sessionCookie } from '../helpers/admin-client';
import { isolatedDatabase } from '../helpers/isolated-database';
import { FakeFcm } from '../push/fakes/fake-fcm';
import { FAST_PUSH, PushFiles, androidDevice, fcmEnv } from '../push/push-kit';
import { totpCodeAt } from '../../src/admin/admin-totp';
import { HOST_PASSWORD, hostCookie, inboxCode, randomPhone } from '../helpers/host-app-client';
import {
  TEST_SECRETS,
  TestApp,
  bearer,
  friendConversationId,
  hostAuth,
  randomGroupId,
  randomUserId,
  startTestApp,
} from '../helpers/test-app';

interface Call {
  token?: string;
  host?: boolean;
  query?: Record<string, string>;
  body?: unknown;
  /** Sent as-is with Content-Type: application/json (the signed room callback). */
  raw?: string;
  params?: Record<string, string>;
  headers?: Record<string, string>;
  upload?: { file: Buffer; name: string; fields: Record<string, string> };
  /** Another instance to send it to (one on a database of its own). */
  via?: TestApp;
}
interface User {
  userId: string;
  id: string;
  token: string;
  username: string;
}

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

describe('replies match the served OpenAPI document', () => {
  let t: TestApp;
  let document: OpenApiDocument;
  let replies: ReplyValidator;
  /** Operations with a validated reply, and those with a validated successful one. */
  const validated = new Set<string>();
  const succeeded = new Set<string>();

  beforeAll(async () => {
    t = await startTestApp();
    const served = await t.http.get('/openapi.json');
    expect(served.status).toBe(200);
    document = served.body as OpenApiDocument;
    replies = new ReplyValidator(document);
  });
  afterAll(() => t.close());

  const operationKeys = (): string[] =>
    Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );

  /** Checks one reply of operation `key` against the document and records it. */
  function check(key: string, operation: Operation, response: Response): void {
    // The document lists HTTP 200 for the envelope; 1500 comes with HTTP 500 or 503 in the same envelope.
    const documented =
      operation.responses[String(response.status)] ?? (response.status >= 500 ? operation.responses['200'] : undefined);
    if (!documented) throw new Error(`${key} answered HTTP ${response.status}, which the document does not list`);
    const content = documented.content ?? {};
    const type = String(response.headers['content-type'] ?? '')
      .split(';')[0]
      .trim();
    if (type === 'application/json') {
      replies.assertMatches(key, operation, response.status, response.body);
      if (response.status === 200 && (response.body as { code?: unknown }).code === 0) succeeded.add(key);
    } else {
      // Media bytes: the document describes them as binary, whatever their sniffed type.
      const binary = Object.entries(content).some(
        ([documentedType, entry]) => !documentedType.includes('json') && entry.schema?.format === 'binary',
      );
      if (!binary)
        throw new Error(`${key}: answered ${type || 'no Content-Type'}, and the document lists no binary reply`);
      if (response.status === 200) succeeded.add(key);
    }
    validated.add(key);
  }

  /** Sends a request to operation `key` ("POST /app/sdk/..." as in the document) and validates the reply. */
  async function call(key: string, request: Call = {}): Promise<Response> {
    const [method, template] = key.split(' ');
    const operation = document.paths[template]?.[method.toLowerCase()];
    if (!operation) throw new Error(`${key} is not in the document`);
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(request.params?.[name] ?? ''));
    const http = (request.via ?? t).http;
    let test = method === 'GET' ? http.get(path) : http.post(path);
    if (request.host) test = test.set(...hostAuth());
    if (request.token) test = test.set(...bearer(request.token));
    for (const [name, value] of Object.entries(request.headers ?? {})) test = test.set(name, value);
    if (request.query) test = test.query(request.query);
    if (request.upload) {
      test = test.attach('file', request.upload.file, request.upload.name);
      for (const [name, value] of Object.entries(request.upload.fields)) test = test.field(name, value);
    } else if (request.raw !== undefined) {
      test = test.set('Content-Type', 'application/json').send(request.raw);
    } else if (request.body !== undefined) {
      test = test.send(request.body as object);
    }
    const response = await test;
    check(key, operation, response);
    return response;
  }

  /** The `data` of a successful, validated reply. */
  async function ok<T = Record<string, unknown>>(key: string, request: Call = {}): Promise<T> {
    const response = await call(key, request);
    if (response.status !== 200 || response.body?.code !== 0)
      throw new Error(`${key}: expected success, got HTTP ${response.status} ${JSON.stringify(response.body)}`);
    return response.body.data as T;
  }

  /** A validated refusal with `code`. */
  async function refused(key: string, code: number, request: Call = {}): Promise<void> {
    const response = await call(key, request);
    expect({ key, code: response.body?.code, data: response.body?.data }).toEqual({ key, code, data: null });
  }

  async function issue(via?: TestApp): Promise<User> {
    const userId = randomUserId('oc');
    const username = `n${randomBytes(6).toString('hex')}`;
    const data = await ok<{ user: { id: string }; token: string }>('POST /app/sdk/token', {
      via,
      host: true,
      body: {
        user_id: userId,
        nickname: `Nick ${userId.slice(-4)}`,
        username,
        platform: 'android',
        manufacturer: 'xiaomi',
        package_name: 'com.example.im',
      },
    });
    return { userId, id: data.user.id, token: data.token, username };
  }

  let alice: User;
  let bob: User;
  let carol: User;
  let dave: User;
  let erin: User;
  let groupId: string;
  const ab = (): string => friendConversationId(bob);
  const ba = (): string => friendConversationId(alice);

  it('names the type of every nullable property (request bodies included)', () => {
    // A nullable property without a type is emitted as `type: object` by the swagger plugin.
    const untyped: string[] = [];
    for (const [name, schema] of Object.entries(document.components.schemas)) {
      for (const [field, property] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
        if (
          property.nullable === true &&
          property.type === 'object' &&
          !property.properties &&
          !property.additionalProperties &&
          !property.allOf &&
          !property.$ref
        )
          untyped.push(`${name}.${field}`);
      }
    }
    expect(untyped).toEqual([]);
  });

  it('health', async () => {
    await ok('GET /health');
    await ok('GET /health/ready');
    await refused('GET /health', 1004, { query: { limit: '10' } });
  });

  it('host backend', async () => {
    [alice, bob, carol, dave, erin] = [await issue(), await issue(), await issue(), await issue(), await issue()];
    const other = randomUserId('oc');
    await ok('POST /app/sdk/users/upsert', {
      host: true,
      body: { user_id: other, nickname: 'Other', avatar: 'https://cdn.example/a.png', signature: 'hi' },
    });
    await ok('POST /app/sdk/users/status', { host: true, body: { user_id: other, disabled: true } });
    await ok('POST /app/sdk/users/status', { host: true, body: { user_id: other, disabled: false } });
    await ok('POST /app/sdk/users/revoke-tokens', { host: true, body: { user_id: other } });
    await refused('POST /app/sdk/users/status', 1204, {
      host: true,
      body: { user_id: randomUserId('oc'), disabled: true },
    });
    await refused('POST /app/sdk/token', 1001, {
      headers: { Authorization: 'Bearer wrong-secret' },
      body: { user_id: other, nickname: 'Other' },
    });
  });

  it('profile', async () => {
    await ok('GET /app/sdk/users/me', { token: alice.token });
    await ok('POST /app/sdk/users/me/update', { token: alice.token, body: { signature: 'contract' } });
    await ok('GET /app/sdk/users/profile', { token: alice.token, query: { user_id: bob.userId } });
    await ok('GET /app/sdk/users/lookup', { token: alice.token, query: { username: bob.username } });
    await refused('GET /app/sdk/users/lookup', 1204, {
      token: alice.token,
      query: { username: `n${randomBytes(6).toString('hex')}` },
    });
    await refused('GET /app/sdk/users/me', 1101);
  });

  it('friends and blocks', async () => {
    const send = (from: User, to: User) =>
      ok<{ request: { id: string } }>('POST /app/sdk/friends/requests', {
        token: from.token,
        body: { user_id: to.userId, request_id: randomUUID(), message: 'hello' },
      });
    const toBob = await send(alice, bob);
    await ok('GET /app/sdk/friends/requests', { token: bob.token, query: { direction: 'incoming' } });
    await ok('POST /app/sdk/friends/requests/accept', { token: bob.token, body: { id: toBob.request.id } });
    const fromCarol = await send(carol, alice);
    await ok('POST /app/sdk/friends/requests/reject', { token: alice.token, body: { id: fromCarol.request.id } });
    await refused('POST /app/sdk/friends/requests/reject', 1205, {
      token: alice.token,
      body: { id: fromCarol.request.id },
    });
    const fromDave = await send(dave, alice);
    await ok('POST /app/sdk/friends/requests/accept', { token: alice.token, body: { id: fromDave.request.id } });
    await ok('GET /app/sdk/friends', { token: alice.token });
    await ok('POST /app/sdk/presence/query', { token: alice.token, body: { user_ids: [bob.userId, dave.userId] } });
    await refused('POST /app/sdk/presence/query', 1004, { token: alice.token, body: { user_ids: [] } });
    await ok('POST /app/sdk/friends/delete', { token: alice.token, body: { user_id: dave.userId } });
    await ok('POST /app/sdk/friends/block', { token: alice.token, body: { user_id: erin.userId } });
    await ok('GET /app/sdk/friends/blocks', { token: alice.token });
    await ok('POST /app/sdk/friends/unblock', { token: alice.token, body: { user_id: erin.userId } });
    await refused('POST /app/sdk/friends/requests', 1004, {
      token: alice.token,
      body: { user_id: alice.userId, request_id: randomUUID() },
    });
  });

  it('groups', async () => {
    groupId = randomGroupId();
    const body = (extra: Record<string, unknown> = {}) => ({ group_id: groupId, ...extra });
    await ok('POST /app/sdk/groups/create', {
      token: alice.token,
      body: { group_id: groupId, name: 'Contract', member_ids: [bob.userId, carol.userId] },
    });
    await ok('GET /app/sdk/groups/get', { token: bob.token, query: { group_id: groupId } });
    await ok('GET /app/sdk/groups', { token: alice.token });
    await ok('POST /app/sdk/groups/update', { token: alice.token, body: body({ name: 'Contract tests' }) });
    await ok('GET /app/sdk/groups/members', { token: alice.token, query: { group_id: groupId } });
    await ok('POST /app/sdk/groups/members/add', { token: alice.token, body: body({ user_ids: [dave.userId] }) });
    await ok('POST /app/sdk/groups/admins/set', {
      token: alice.token,
      body: body({ user_id: bob.userId, admin: true }),
    });
    await ok('POST /app/sdk/groups/members/mute', {
      token: alice.token,
      body: body({ user_id: carol.userId, duration_seconds: 60 }),
    });
    await ok('POST /app/sdk/groups/members/remove', { token: alice.token, body: body({ user_ids: [dave.userId] }) });
    const invitation = await ok<{ code: string }>('POST /app/sdk/groups/invitations/create', {
      token: alice.token,
      body: body({ ttl_seconds: 3600 }),
    });
    await ok('POST /app/sdk/groups/join', { token: erin.token, body: { code: invitation.code } });
    await ok('POST /app/sdk/groups/leave', { token: erin.token, body: body() });
    await ok('POST /app/sdk/groups/transfer', { token: alice.token, body: body({ user_id: bob.userId }) });

    const doomed = randomGroupId();
    await ok('POST /app/sdk/groups/create', { token: alice.token, body: { group_id: doomed, name: 'Doomed' } });
    await ok('POST /app/sdk/groups/dismiss', { token: alice.token, body: { group_id: doomed } });
    await refused('GET /app/sdk/groups/get', 1209, { token: alice.token, query: { group_id: doomed } });
    await refused('POST /app/sdk/groups/join', 1210, { token: erin.token, body: { code: 'A'.repeat(24) } });
  });

  it('media, messages, search', async () => {
    const { media } = await ok<{ media: { media_id: string } }>('POST /app/sdk/media/upload', {
      token: alice.token,
      upload: { file: PNG, name: 'pixel.png', fields: { kind: 'image' } },
    });
    const download = await call('GET /app/sdk/media/{media_id}', {
      token: alice.token,
      params: { media_id: media.media_id },
    });
    expect(download.status).toBe(200);
    await refused('GET /app/sdk/media/{media_id}', 1207, {
      token: alice.token,
      params: { media_id: '9000000000000000001' },
    });

    const send = (content: Record<string, unknown>, type = 'text') =>
      ok<{ message: { mid: string; conversation_seq: string } }>('POST /app/sdk/messages/send', {
        token: alice.token,
        body: { conversation_id: ab(), client_message_id: randomUUID(), type, content },
      });
    const text = await send({ text: 'contract words' });
    const image = await send({ media_id: media.media_id, width: 1, height: 1 }, 'image');
    await ok('POST /app/sdk/messages/send', {
      token: bob.token,
      body: {
        conversation_id: ba(),
        client_message_id: randomUUID(),
        type: 'custom',
        content: { data: { kind: 'card' }, description: 'a card' },
      },
    });
    await ok('GET /app/sdk/messages', {
      token: alice.token,
      query: { conversation_id: ab(), known_last_seq: '0', known_updated_at: '0', known_deletion_revision: '0' },
    });
    await ok('GET /app/sdk/messages', {
      token: alice.token,
      query: { conversation_id: ab(), around_mid: text.message.mid },
    });
    await ok('GET /app/sdk/messages/search', {
      token: alice.token,
      query: { conversation_id: ab(), keyword: 'contract' },
    });
    await ok('POST /app/sdk/messages/read', {
      token: bob.token,
      body: { conversation_id: ba(), read_seq: image.message.conversation_seq },
    });
    await ok('POST /app/sdk/messages/recall', {
      token: alice.token,
      body: { conversation_id: ab(), mid: text.message.mid },
    });
    await ok('POST /app/sdk/messages/delete', {
      token: alice.token,
      body: { conversation_id: ab(), mid: image.message.mid },
    });
    // Tombstones (content null) in a window.
    await ok('GET /app/sdk/messages', { token: bob.token, query: { conversation_id: ba(), after_seq: '0' } });
    await refused('POST /app/sdk/messages/recall', 1207, {
      token: alice.token,
      body: { conversation_id: ab(), mid: '9000000000000000001' },
    });
    await refused('POST /app/sdk/messages/send', 1203, {
      token: carol.token,
      body: {
        conversation_id: `group_${groupId}`,
        client_message_id: randomUUID(),
        type: 'text',
        content: { text: 'muted' },
      },
    });
  });

  it('sync and conversation settings', async () => {
    await ok('POST /app/sdk/messages/send', {
      token: bob.token,
      body: {
        conversation_id: `group_${groupId}`,
        client_message_id: randomUUID(),
        type: 'text',
        content: { text: 'to the group' },
      },
    });
    await ok('POST /app/sdk/sync', { token: alice.token, body: {} });
    await ok('GET /app/sdk/unread', { token: alice.token });
    await ok('POST /app/sdk/conversations/pin', { token: alice.token, body: { conversation_id: ab(), pinned: true } });
    await ok('POST /app/sdk/conversations/mute', { token: alice.token, body: { conversation_id: ab(), muted: true } });
    await ok('POST /app/sdk/conversations/hide', { token: alice.token, body: { conversation_id: ab(), hidden: true } });
    await refused('POST /app/sdk/conversations/pin', 1201, {
      token: alice.token,
      body: { conversation_id: friendConversationId({ userId: randomUserId('oc') }), pinned: true },
    });
  });

  it('client errors and reports', async () => {
    await ok('POST /app/sdk/client-errors', { token: alice.token, body: clientErrorReport(alice.userId) });
    await ok('POST /app/sdk/reports/user', {
      token: alice.token,
      body: { request_id: randomUUID(), reason_code: 1, user_id: erin.userId },
    });
    await ok('POST /app/sdk/reports/group', {
      token: alice.token,
      body: { request_id: randomUUID(), reason_code: 1, group_id: groupId },
    });
    await refused('POST /app/sdk/reports/user', 1204, {
      token: alice.token,
      body: { request_id: randomUUID(), reason_code: 1, user_id: randomUserId('oc') },
    });
  });

  it('calls and room callbacks', async () => {
    const release = await isolateCallTimers(t);
    try {
      type Action = { call: { call_id: string; room_id: number } };
      const start = () =>
        ok<Action>('POST /app/sdk/calls/start', {
          token: alice.token,
          body: { conversation_id: ab(), media: 'audio', client_call_id: randomUUID(), device_id: 'dev-a' },
        });
      const first = await start();
      const callId = first.call.call_id;
      await ok('POST /app/sdk/calls/ringing', { token: bob.token, body: { call_id: callId } });
      await ok('POST /app/sdk/calls/accept', { token: bob.token, body: { call_id: callId, device_id: 'dev-b' } });
      await ok('POST /app/sdk/calls/credentials', { token: alice.token, body: { call_id: callId } });
      await ok('GET /app/sdk/calls/get', { token: alice.token, query: { call_id: callId } });
      await ok('GET /app/sdk/calls/active', { token: bob.token });

      const now = t.clock.now();
      const raw = JSON.stringify({
        EventGroupId: 1,
        EventType: 103,
        CallbackTs: now,
        EventInfo: { RoomId: first.call.room_id, UserId: `u${alice.id}`, EventMsTs: now },
      });
      const sign = createHmac('sha256', TEST_SECRETS.RTC_CALLBACK_SECRET).update(raw).digest('base64');
      const accepted = await call('POST /app/sdk/rtc/room-callback', {
        raw,
        headers: { SdkAppId: TEST_SECRETS.RTC_SDK_APP_ID, Sign: sign },
      });
      expect(accepted.status).toBe(200);
      const forged = await call('POST /app/sdk/rtc/room-callback', {
        raw,
        headers: { SdkAppId: TEST_SECRETS.RTC_SDK_APP_ID, Sign: 'AAAA' },
      });
      expect(forged.status).toBe(403);
      expect((await call('GET /app/sdk/rtc/room-callback')).status).toBe(200);

      await ok('POST /app/sdk/calls/hangup', { token: alice.token, body: { call_id: callId } });
      const second = await start();
      await ok('POST /app/sdk/calls/reject', {
        token: bob.token,
        body: { call_id: second.call.call_id, reason: 'decline' },
      });
      const third = await start();
      await ok('POST /app/sdk/calls/cancel', { token: alice.token, body: { call_id: third.call.call_id } });
      await refused('GET /app/sdk/calls/get', 1214, { token: alice.token, query: { call_id: randomUUID() } });
      await refused('POST /app/sdk/calls/cancel', 1215, { token: bob.token, body: { call_id: callId } });

      // Call summaries (type "call") in the window and on the home list.
      await ok('GET /app/sdk/messages', {
        token: alice.token,
        query: { conversation_id: ab(), known_last_seq: '0', known_updated_at: '0', known_deletion_revision: '0' },
      });
      await ok('POST /app/sdk/sync', { token: bob.token, body: {} });
    } finally {
      await release();
    }
  });

  it('admin console', async () => {
    const owner = await createAdmin(t, 'owner');
    const viewer = await createAdmin(t, 'viewer');
    const csrf = { 'X-Admin-CSRF': '1' };
    const loginAs = async (username: string): Promise<Record<string, string>> => {
      const response = await call('POST /app/admin/auth/login', {
        headers: csrf,
        body: { username, password: ADMIN_PASSWORD },
      });
      return { ...csrf, Cookie: sessionCookie(response) };
    };
    const as = await loginAs(owner);
    const seen = await loginAs(viewer);
    await ok('GET /app/admin/auth/me', { headers: as });
    await refused('GET /app/admin/auth/me', 1101);
    await refused('GET /app/admin/admins', 1004, { headers: seen });
    await refused('POST /app/admin/auth/login', 1102, { headers: csrf, body: { username: owner, password: 'wrong!' } });
    const extra = `x${randomBytes(4).toString('hex')}`;
    await ok('POST /app/admin/admins/create', {
      headers: as,
      body: { username: extra, password: ADMIN_PASSWORD, role: 'viewer' },
    });
    await ok('GET /app/admin/admins', { headers: as });
    await ok('POST /app/admin/admins/update', { headers: as, body: { username: extra, role: 'moderator' } });
    await ok('POST /app/admin/admins/delete', { headers: as, body: { username: extra } });
    await ok('POST /app/admin/auth/locale', { headers: seen, body: { locale: 'zh-CN' } });
    await refused('POST /app/admin/auth/locale', 1004, { headers: seen, body: { locale: 'fr' } });
    await ok('POST /app/admin/auth/password', {
      headers: seen,
      body: { current_password: ADMIN_PASSWORD, new_password: ADMIN_PASSWORD },
    });

    const reports = await ok<{ items: Array<{ report_id: string }> }>('GET /app/admin/reports', { headers: seen });
    const reportId = reports.items[0].report_id;
    await ok('GET /app/admin/reports/detail', { headers: seen, query: { report_id: reportId } });
    await ok('POST /app/admin/reports/transition', {
      headers: as,
      body: { report_id: reportId, status: 'reviewed', note: 'seen' },
    });
    await refused('POST /app/admin/reports/transition', 1004, {
      headers: as,
      body: { report_id: reportId, status: 'reviewed' },
    });
    // Moderation from a report (issue 25): the grouping, a reported message's context, actions.
    await ok('GET /app/admin/reports/targets', { headers: seen, query: { status: 'all', sort: 'latest' } });
    const reported = await ok<{ message: { mid: string } }>('POST /app/sdk/messages/send', {
      token: alice.token,
      body: { conversation_id: ab(), client_message_id: randomUUID(), type: 'text', content: { text: 'reported' } },
    });
    const reportKey = randomUUID();
    await ok('POST /app/sdk/reports/user', {
      token: bob.token,
      body: {
        request_id: reportKey,
        reason_code: 7,
        user_id: alice.userId,
        conversation_id: friendConversationId(alice),
        message_ids: [reported.message.mid],
      },
    });
    const [{ id: actedOn }] = (await t.app
      .get(DataSource)
      .query('SELECT id FROM reports WHERE reporter_id = ? AND request_id = ?', [bob.id, reportKey])) as Array<{
      id: string | number;
    }>;
    const contextQuery = { report_id: String(actedOn), message_id: reported.message.mid };
    await ok('GET /app/admin/reports/context', { headers: as, query: contextQuery });
    await refused('GET /app/admin/reports/context', 1004, { headers: seen, query: contextQuery });
    await ok('POST /app/admin/reports/act', {
      headers: as,
      body: { report_id: String(actedOn), action: 'recall_messages' },
    });
    await ok('POST /app/admin/reports/act', {
      headers: as,
      body: { report_id: String(actedOn), action: 'close', note: 'recalled' },
    });
    await refused('POST /app/admin/reports/act', 1004, {
      headers: as,
      body: { report_id: String(actedOn), action: 'close' },
    });
    const errors = await ok<{ items: Array<{ error_code: string; platform: string; build_id: string | null }> }>(
      'GET /app/admin/client-errors',
      { headers: seen, query: { platform: 'ios', sort: 'occurrences' } },
    );
    const errorGroup = {
      error_code: errors.items[0].error_code,
      platform: errors.items[0].platform,
      ...(errors.items[0].build_id === null ? {} : { build_id: errors.items[0].build_id }),
    };
    await ok('GET /app/admin/client-errors/group', { headers: seen, query: errorGroup });
    const occurrences = await ok<{ items: Array<{ merge_key: string }> }>('GET /app/admin/client-errors/occurrences', {
      headers: seen,
      query: errorGroup,
    });
    await ok('GET /app/admin/client-errors/detail', {
      headers: seen,
      query: { merge_key: occurrences.items[0].merge_key },
    });
    await ok('GET /app/admin/dashboard', { headers: seen });
    await ok('GET /app/admin/analytics', { headers: seen, query: { range: '90d' } });
    await refused('GET /app/admin/analytics', 1004, { headers: seen, query: { range: '7d' } });

    await ok('GET /app/admin/users', { headers: seen, query: { q: dave.userId } });
    await ok('GET /app/admin/users/detail', { headers: seen, query: { user_id: dave.userId } });
    await ok('GET /app/admin/users', { headers: seen, query: { sort: 'last_active', disabled: 'false' } });
    await refused('GET /app/admin/users', 1004, { headers: seen, query: { sort: 'foo' } });
    await ok('GET /app/admin/users/overview', { headers: seen, query: { user_id: dave.userId } });
    await ok('POST /app/admin/users/profile', { headers: as, body: { user_id: dave.userId, nickname: 'Dave by ops' } });
    await refused('POST /app/admin/users/profile', 1004, { headers: as, body: { user_id: dave.userId } });
    await refused('GET /app/admin/users/overview', 1204, { headers: seen, query: { user_id: randomUserId('oc') } });
    expect((await call('GET /app/admin/users/export', { headers: as, query: { q: dave.userId } })).status).toBe(200);
    await refused('GET /app/admin/users/export', 1004, { headers: as, query: { online: 'maybe' } });
    await refused('GET /app/admin/users/detail', 1204, { headers: seen, query: { user_id: randomUserId('oc') } });
    await ok('POST /app/admin/users/force-logout', { headers: as, body: { user_id: dave.userId } });
    await ok('POST /app/admin/users/status', { headers: as, body: { user_id: dave.userId, disabled: true } });
    await ok('POST /app/admin/users/status', { headers: as, body: { user_id: dave.userId, disabled: false } });

    await ok('GET /app/admin/groups', { headers: seen, query: { q: groupId } });
    await ok('GET /app/admin/groups/members', { headers: seen, query: { group_id: groupId } });
    await ok('GET /app/admin/groups', { headers: seen, query: { sort: 'name', dismissed: 'false' } });
    await ok('GET /app/admin/groups/overview', { headers: seen, query: { group_id: groupId } });
    await refused('GET /app/admin/groups/overview', 1209, { headers: seen, query: { group_id: 'no-such-group' } });
    expect((await call('GET /app/admin/groups/export', { headers: as, query: { q: groupId } })).status).toBe(200);
    await ok('POST /app/admin/groups/status', { headers: as, body: { group_id: groupId, disabled: true } });
    await ok('POST /app/admin/groups/status', { headers: as, body: { group_id: groupId, disabled: false } });
    const doomed = randomGroupId();
    await ok('POST /app/sdk/groups/create', { token: alice.token, body: { group_id: doomed, name: 'Doomed' } });
    await ok('POST /app/admin/groups/dismiss', { headers: as, body: { group_id: doomed } });
    await refused('POST /app/admin/groups/dismiss', 1209, { headers: as, body: { group_id: doomed } });
    // The operator's member and message actions (issue 25), on a group of their own.
    const moderated = randomGroupId();
    await ok('POST /app/sdk/groups/create', {
      token: alice.token,
      body: { group_id: moderated, name: 'Moderated', member_ids: [bob.userId, carol.userId] },
    });
    const member = { group_id: moderated, user_id: carol.userId };
    await ok('POST /app/admin/groups/members/mute', { headers: as, body: { ...member, duration_seconds: 60 } });
    await refused('POST /app/admin/groups/members/mute', 1209, {
      headers: as,
      body: { group_id: moderated, user_id: alice.userId, duration_seconds: 60 },
    });
    await ok('POST /app/admin/groups/transfer', { headers: as, body: { group_id: moderated, user_id: bob.userId } });
    await refused('POST /app/admin/groups/transfer', 1004, { headers: as, body: { group_id: moderated } });
    const spoken = await ok<{ message: { mid: string } }>('POST /app/sdk/messages/send', {
      token: bob.token,
      body: {
        conversation_id: `group_${moderated}`,
        client_message_id: randomUUID(),
        type: 'text',
        content: { text: 'to be moderated' },
      },
    });
    const messages = { conversation_id: `group_${moderated}`, message_ids: [spoken.message.mid] };
    await ok('POST /app/admin/messages/recall', { headers: as, body: messages });
    await ok('POST /app/admin/messages/delete', { headers: as, body: messages });
    await refused('POST /app/admin/messages/delete', 1201, {
      headers: as,
      body: { conversation_id: '999999999999', message_ids: ['1'] },
    });
    await ok('POST /app/admin/groups/members/remove', { headers: as, body: member });
    await ok('POST /app/admin/users/status', {
      headers: as,
      body: { user_id: dave.userId, disabled: true, duration_seconds: 3600, reason: 'Contract check' },
    });
    await refused('POST /app/admin/users/status', 1004, {
      headers: as,
      body: { user_id: dave.userId, disabled: true, duration_seconds: 30 },
    });
    await ok('POST /app/admin/users/status', { headers: as, body: { user_id: dave.userId, disabled: false } });
    const setup = await ok<{ secret: string }>('POST /app/admin/auth/totp/setup', { headers: seen });
    await refused('POST /app/admin/auth/totp/enable', 1004, { headers: seen, body: { code: 'abc' } });
    await ok('POST /app/admin/auth/totp/enable', {
      headers: seen,
      body: { code: totpCodeAt(setup.secret, t.clock.now()) },
    });
    t.clock.advance(30_000);
    await ok('POST /app/admin/auth/totp/disable', {
      headers: seen,
      body: { password: ADMIN_PASSWORD, code: totpCodeAt(setup.secret, t.clock.now()) },
    });
    await ok('GET /app/admin/audit', { headers: seen });
    await ok('POST /app/admin/auth/logout', { headers: seen });
    await refused('GET /app/admin/dashboard', 1102, { headers: seen });
  });

  it('admin console: runtime settings (on a database of their own: they apply to every user of it)', async () => {
    const database = await isolatedDatabase();
    const own = await startTestApp(database.env);
    try {
      const owner = await createAdmin(own, 'owner');
      const csrf = { 'X-Admin-CSRF': '1' };
      const response = await call('POST /app/admin/auth/login', {
        via: own,
        headers: csrf,
        body: { username: owner, password: ADMIN_PASSWORD },
      });
      const as = { ...csrf, Cookie: sessionCookie(response) };
      await ok('GET /app/admin/settings', { via: own, headers: as });
      await ok('POST /app/admin/settings/update', {
        via: own,
        headers: as,
        body: { capabilities: { search: false }, rate_limits: { send: { limit: 5, window_ms: 1000 } } },
      });
      await refused('POST /app/admin/settings/update', 1004, { via: own, headers: as, body: {} });
      await ok('POST /app/admin/settings/reset', { via: own, headers: as, body: { keys: ['capabilities'] } });
      await refused('POST /app/admin/settings/rtc-callback-key/promote', 1004, { via: own, headers: as });
      await ok('POST /app/admin/settings/rtc-callback-key/stage', {
        via: own,
        headers: as,
        body: { key: `next-${randomBytes(16).toString('hex')}` },
      });
      await ok('POST /app/admin/settings/rtc-callback-key/cancel', { via: own, headers: as });
      await ok('POST /app/admin/settings/rtc-callback-key/stage', {
        via: own,
        headers: as,
        body: { key: `next-${randomBytes(16).toString('hex')}` },
      });
      await ok('POST /app/admin/settings/rtc-callback-key/promote', { via: own, headers: as });
    } finally {
      await own.close();
      await database.drop();
    }
  });

  it('admin console: webhooks (on a database of their own: every instance delivers its endpoints)', async () => {
    const database = await isolatedDatabase();
    const own = await startTestApp(database.env);
    try {
      const owner = await createAdmin(own, 'owner');
      const csrf = { 'X-Admin-CSRF': '1' };
      const response = await call('POST /app/admin/auth/login', {
        via: own,
        headers: csrf,
        body: { username: owner, password: ADMIN_PASSWORD },
      });
      const as = { ...csrf, Cookie: sessionCookie(response) };
      const created = await ok<{ endpoint: { id: string } }>('POST /app/admin/webhooks/create', {
        via: own,
        headers: as,
        body: { url: 'http://127.0.0.1:9/hook', event_types: ['message.new'] },
      });
      const id = created.endpoint.id;
      await refused('POST /app/admin/webhooks/create', 1004, { via: own, headers: as, body: { url: 'ftp://x' } });
      await ok('GET /app/admin/webhooks', { via: own, headers: as });
      await ok('POST /app/admin/webhooks/update', {
        via: own,
        headers: as,
        body: { id, description: 'contract', event_types: null },
      });
      await ok('POST /app/admin/webhooks/pause', { via: own, headers: as, body: { id } });
      await ok('POST /app/admin/webhooks/resume', { via: own, headers: as, body: { id } });
      await ok('POST /app/admin/webhooks/rotate-secret', { via: own, headers: as, body: { id } });
      // A dead letter to replay, written as the delivery loop would.
      await own.app
        .get(DataSource)
        .query(
          'INSERT INTO webhook_deliveries (endpoint_id, event_id, type, position, status, attempts, first_attempt_at, last_attempt_at, body) ' +
            "VALUES (?, ?, 'message.new', 1, 'dead', 3, 1, 2, '{}')",
          [id, randomUUID()],
        );
      const page = await ok<{ items: Array<{ id: string }> }>('GET /app/admin/webhooks/deliveries', {
        via: own,
        headers: as,
        query: { endpoint_id: id, status: 'dead' },
      });
      await ok('POST /app/admin/webhooks/replay', {
        via: own,
        headers: as,
        body: { endpoint_id: id, delivery_ids: [page.items[0].id] },
      });
      await ok('POST /app/admin/webhooks/delete', { via: own, headers: as, body: { id } });
    } finally {
      await own.close();
      await database.drop();
    }
  });

  it('offline push: registration, settings, the console (an instance of its own, with a fake FCM)', async () => {
    const database = await isolatedDatabase();
    const fcm = await FakeFcm.start();
    const files = new PushFiles();
    const own = await startTestApp({ ...database.env, ...FAST_PUSH, ...(await fcmEnv(fcm, files)) });
    try {
      const user = await issue(own);
      const device = androidDevice();
      await ok('POST /app/sdk/push/register', { via: own, token: user.token, body: device });
      await refused('POST /app/sdk/push/register', 1004, {
        via: own,
        token: user.token,
        body: { ...device, provider: 'xiaomi' },
      });
      await ok('GET /app/sdk/push/settings', { via: own, token: user.token });
      await ok('POST /app/sdk/push/settings', {
        via: own,
        token: user.token,
        body: { preview: 'sender', quiet_hours: { start: '22:00', end: '07:00', timezone: 'Asia/Shanghai' } },
      });
      await refused('POST /app/sdk/push/settings', 1004, { via: own, token: user.token, body: { preview: 'x' } });
      const owner = await createAdmin(own, 'owner');
      const csrf = { 'X-Admin-CSRF': '1' };
      const response = await call('POST /app/admin/auth/login', {
        via: own,
        headers: csrf,
        body: { username: owner, password: ADMIN_PASSWORD },
      });
      const as = { ...csrf, Cookie: sessionCookie(response) };
      await ok('GET /app/admin/push/status', { via: own, headers: as });
      await ok('POST /app/admin/push/test', { via: own, headers: as, body: { user_id: user.userId } });
      await refused('POST /app/admin/push/test', 1204, {
        via: own,
        headers: as,
        body: { user_id: randomUserId('np') },
      });
      await ok('POST /app/sdk/push/unregister', { via: own, token: user.token, body: { device_id: device.device_id } });
    } finally {
      await own.close();
      await fcm.close();
      await database.drop();
      files.cleanup();
    }
  });

  it('server API: messages, notices, groups, friends, listings', async () => {
    const [owner, member, extra] = [await issue(), await issue(), await issue()];
    const host = { host: true };
    const key = (): string => `oc-${randomBytes(8).toString('hex')}`;
    const created = await ok<{ group: { group_id: string } }>('POST /app/server/groups/create', {
      ...host,
      body: { request_id: key(), owner_id: owner.userId, name: 'Server', member_ids: [member.userId] },
    });
    const group = created.group.group_id;
    await ok('POST /app/server/groups/update', {
      ...host,
      body: { request_id: key(), group_id: group, name: 'Server 2' },
    });
    await ok('POST /app/server/groups/members/add', {
      ...host,
      body: { request_id: key(), group_id: group, user_ids: [extra.userId] },
    });
    await ok('POST /app/server/groups/members/role', {
      ...host,
      body: { request_id: key(), group_id: group, user_id: extra.userId, role: 'admin' },
    });
    await ok('POST /app/server/messages/send', {
      ...host,
      body: { request_id: key(), sender_id: owner.userId, group_id: group, type: 'text', content: { text: 'hi' } },
    });
    await ok('POST /app/server/messages/send', {
      ...host,
      body: {
        request_id: key(),
        sender_id: owner.userId,
        to_user_id: member.userId,
        type: 'text',
        content: { text: 'hi' },
      },
    });
    await ok('POST /app/server/messages/notice', {
      ...host,
      body: { request_id: key(), group_id: group, content: { text: 'notice' } },
    });
    await ok('POST /app/server/messages/list', { ...host, body: { group_id: group, count: 10 } });
    await ok('POST /app/server/conversations/list', { ...host, body: { user_id: owner.userId } });
    await ok('POST /app/server/groups/members/remove', {
      ...host,
      body: { request_id: key(), group_id: group, user_ids: [extra.userId] },
    });
    await ok('POST /app/server/groups/dismiss', { ...host, body: { request_id: key(), group_id: group } });
    await ok('POST /app/server/friends/add', {
      ...host,
      body: { request_id: key(), user_id: owner.userId, friend_id: extra.userId },
    });
    await ok('POST /app/server/friends/delete', {
      ...host,
      body: { request_id: key(), user_id: owner.userId, friend_id: extra.userId },
    });
    await refused('POST /app/server/messages/send', 1004, { ...host, body: { request_id: key() } });
    await refused('POST /app/server/groups/dismiss', 1001, { body: { request_id: key(), group_id: group } });
  });

  it('server API: user export and erasure', async () => {
    const subject = await issue();
    const friend = await issue();
    const asked = await ok<{ request: { id: string } }>('POST /app/sdk/friends/requests', {
      token: subject.token,
      body: { user_id: friend.userId, request_id: `fr-${subject.userId}` },
    });
    await ok('POST /app/sdk/friends/requests/accept', { token: friend.token, body: { id: asked.request.id } });
    await ok('POST /app/sdk/messages/send', {
      token: subject.token,
      body: {
        conversation_id: friendConversationId(friend),
        client_message_id: 'oc-1',
        type: 'text',
        content: { text: 'hi' },
      },
    });
    await ok('POST /app/server/users/export', { host: true, body: { user_id: subject.userId } });
    await refused('POST /app/server/users/export', 1204, { host: true, body: { user_id: randomUserId('oc') } });
    await ok('POST /app/server/users/erase', {
      host: true,
      body: { user_id: subject.userId, request_id: `er-${subject.userId}` },
    });
    await ok('POST /app/server/users/erase', { host: true, body: { user_id: subject.userId } });
    await refused('POST /app/server/users/erase', 1004, { host: true, body: {} });
    await refused('POST /app/server/users/erase', 1001, { body: { user_id: subject.userId } });
  });

  it('bundled host application', async () => {
    const phone = randomPhone();
    const origin = { Origin: 'http://im.test' };
    const code = async (purpose: string): Promise<string> => {
      t.clock.advance(61_000); // one code per number per minute
      await ok('POST /app/auth/sms/send', { headers: origin, body: { phone, purpose } });
      await ok('GET /app/auth/dev/sms-inbox', { query: { phone } });
      return inboxCode(t, phone, purpose);
    };
    const signup = await call('POST /app/auth/signup', {
      headers: origin,
      body: { phone, code: await code('signup'), password: HOST_PASSWORD, nickname: 'Contract' },
    });
    const as = { ...origin, Cookie: hostCookie(signup) };
    await ok('GET /app/auth/me', { headers: as });
    await refused('GET /app/auth/me', 1101);
    await ok('POST /app/auth/token', { headers: as, body: {} });
    await ok('POST /app/auth/password', {
      headers: as,
      body: { old_password: HOST_PASSWORD, new_password: HOST_PASSWORD },
    });
    await refused('POST /app/auth/login', 1102, { headers: origin, body: { phone, password: 'wrong password' } });
    await ok('POST /app/auth/login', { headers: origin, body: { phone, password: HOST_PASSWORD } });
    await ok('POST /app/auth/login/sms', { headers: origin, body: { phone, code: await code('login') } });
    await refused('POST /app/auth/sms/send', 1005, { headers: origin, body: { phone, purpose: 'login' } });
    await refused('POST /app/auth/token', 1004, { headers: { ...as, Origin: 'https://evil.example' }, body: {} });
    t.clock.advance(3_600_000);
    await ok('POST /app/auth/password/reset', {
      headers: origin,
      body: { phone, code: await code('reset'), new_password: HOST_PASSWORD },
    });
    await refused('POST /app/auth/logout', 1102, { headers: as });
    const again = await call('POST /app/auth/login', { headers: origin, body: { phone, password: HOST_PASSWORD } });
    await ok('POST /app/auth/logout', { headers: { ...origin, Cookie: hostCookie(again) } });
  });

  it('covered every documented operation with a validated successful reply', () => {
    const operations = operationKeys();
    expect(operations.length).toBeGreaterThan(0);
    expect(operations.filter((key) => !succeeded.has(key))).toEqual([]);
    expect(operations.filter((key) => !validated.has(key))).toEqual([]);
  });
});
