// Shared by the black-box call specs: the HTTP surface of /app/sdk/calls, signed room
// callbacks, the summary message, and fixtures (friends, groups, sockets).
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { createConnection } from 'mysql2/promise';
import { CallRoomEventsService } from '../../src/calls/call-room-events.service';
import { parseDatabaseUrl } from '../../src/config/app-config';
import { Received, RtClient, connect, listen } from '../helpers/realtime';
import { Seed } from '../helpers/factories';
import {
  IssuedUser,
  TEST_SECRETS,
  TestApp,
  bearer,
  friendConversationId,
  issueUser,
  okData,
  randomGroupId,
  startTestApp,
} from '../helpers/test-app';

export interface Participant {
  user_id: string;
  role: 'caller' | 'callee';
  state: 'invited' | 'ringing' | 'joined' | 'left' | 'declined';
  in_room: boolean;
  joined_at: number | null;
  left_at: number | null;
}

export interface Call {
  call_id: string;
  conversation_id: string;
  media: 'audio' | 'video';
  state: 'ringing' | 'ongoing' | 'ended';
  end_reason: string | null;
  caller_user_id: string;
  room_id: number;
  started_at: number;
  accepted_at: number | null;
  ended_at: number | null;
  duration_ms: number | null;
  participants: Participant[];
}

export interface Credentials {
  sdk_app_id: number;
  user_id: string;
  user_sig: string;
  room_id: number;
  expire_at: number;
}

export interface CallAction {
  call: Call;
  credentials: Credentials | null;
  event_id: string | null;
}

export interface SummaryMessage {
  mid: string;
  sender_id: string;
  type: string;
  content: { call_id: string; media: string; result: string; duration_ms: number | null } | null;
}

/** The provider user ID the server derives for a user (`u` + internal ID). */
export const providerId = (u: IssuedUser): string => `u${u.id}`;

export const groupConversationId = (publicGroupId: string): string => `group_${publicGroupId}`;

/** One participant of a call, by external user ID. */
export function participant(call: Call, user: IssuedUser): Participant {
  const found = call.participants.find((p) => p.user_id === user.userId);
  if (!found) throw new Error(`${user.userId} is not a participant of ${call.call_id}`);
  return found;
}

/** user → participant state, for compact assertions. */
export const states = (call: Call, users: IssuedUser[]): string[] => users.map((u) => participant(call, u).state);

export class CallsApi {
  private counter = 0;

  constructor(readonly t: TestApp) {}

  post(user: IssuedUser, action: string, body: Record<string, unknown>): Promise<Response> {
    return this.t.http
      .post(`/app/sdk/calls/${action}`)
      .set(...bearer(user.token))
      .send(body);
  }

  /** A fresh idempotency key. */
  key(): string {
    this.counter += 1;
    return `k-${randomBytes(4).toString('hex')}-${this.counter}`;
  }

  startRaw(user: IssuedUser, conversationId: string, extra: Record<string, unknown> = {}): Promise<Response> {
    return this.post(user, 'start', {
      conversation_id: conversationId,
      media: 'audio',
      client_call_id: this.key(),
      device_id: 'dev-main',
      ...extra,
    });
  }

  async start(user: IssuedUser, conversationId: string, extra: Record<string, unknown> = {}): Promise<CallAction> {
    return okData<CallAction>(await this.startRaw(user, conversationId, extra));
  }

  acceptRaw(user: IssuedUser, callId: string, deviceId = 'dev-main'): Promise<Response> {
    return this.post(user, 'accept', { call_id: callId, device_id: deviceId });
  }

  async accept(user: IssuedUser, callId: string, deviceId = 'dev-main'): Promise<CallAction> {
    return okData<CallAction>(await this.acceptRaw(user, callId, deviceId));
  }

  async act(user: IssuedUser, action: 'ringing' | 'cancel' | 'hangup', callId: string): Promise<CallAction> {
    return okData<CallAction>(await this.post(user, action, { call_id: callId }));
  }

  async reject(user: IssuedUser, callId: string, reason: 'decline' | 'busy' = 'decline'): Promise<CallAction> {
    return okData<CallAction>(await this.post(user, 'reject', { call_id: callId, reason }));
  }

  getRaw(user: IssuedUser, callId: string): Promise<Response> {
    return this.t.http
      .get('/app/sdk/calls/get')
      .set(...bearer(user.token))
      .query({ call_id: callId });
  }

  async get(user: IssuedUser, callId: string): Promise<Call> {
    return okData<Call>(await this.getRaw(user, callId));
  }

  async active(user: IssuedUser): Promise<Call[]> {
    return okData<{ calls: Call[] }>(await this.t.http.get('/app/sdk/calls/active').set(...bearer(user.token))).calls;
  }

  /** Runs a pass of the server's call timers (ring timeout, empty room) at the current clock. */
  async timers(): Promise<void> {
    const service = this.t.app.get(CallRoomEventsService);
    // A pass already under way read the clock before the test moved it: let it finish, run anew.
    await service.runTimers();
    await service.runTimers();
  }

  /** A signed provider room callback; `user` is a user or a raw provider user ID. */
  room(
    type: 102 | 103 | 104,
    roomId: number,
    user: IssuedUser | string | null,
    eventMs: number,
    callbackTs = this.t.clock.now(),
  ): Promise<Response> {
    const info: Record<string, unknown> = { RoomId: roomId, EventMsTs: eventMs };
    if (user !== null) info.UserId = typeof user === 'string' ? user : providerId(user);
    return this.signed({ EventGroupId: 1, EventType: type, CallbackTs: callbackTs, EventInfo: info });
  }

  signed(body: unknown): Promise<Response> {
    const raw = JSON.stringify(body);
    const sign = createHmac('sha256', TEST_SECRETS.RTC_CALLBACK_SECRET).update(raw).digest('base64');
    return this.t.http
      .post('/app/sdk/rtc/room-callback')
      .set('Content-Type', 'application/json')
      .set('SdkAppId', TEST_SECRETS.RTC_SDK_APP_ID)
      .set('Sign', sign)
      .send(raw);
  }

  /** The latest messages and the reader's unread count in one conversation. */
  async window(user: IssuedUser, conversationId: string): Promise<{ unread: number; messages: SummaryMessage[] }> {
    const reply = await this.t.http
      .get('/app/sdk/messages')
      .set(...bearer(user.token))
      .query({
        conversation_id: conversationId,
        known_last_seq: '0',
        known_updated_at: '0',
        known_deletion_revision: '0',
      });
    return okData<{ unread: number; messages: SummaryMessage[] }>(reply);
  }

  /** The call-summary messages of one call in a conversation, as `user` reads them. */
  async summaries(user: IssuedUser, conversationId: string, callId: string): Promise<SummaryMessage[]> {
    return (await this.window(user, conversationId)).messages.filter(
      (m) => m.type === 'call' && m.content?.call_id === callId,
    );
  }
}

/** Two users who are friends, each with the conversation ID they use for the other. */
export async function friendPair(t: TestApp): Promise<{ a: IssuedUser; b: IssuedUser; ab: string; ba: string }> {
  const [a, b] = [await issueUser(t), await issueUser(t)];
  await new Seed(t).friends(a.id, b.id);
  return { a, b, ab: friendConversationId(b), ba: friendConversationId(a) };
}

/** A group owned by the first of `count` fresh users, all members. */
export async function groupOf(
  t: TestApp,
  count: number,
): Promise<{ users: IssuedUser[]; cid: string; groupId: string; conversationRowId: string }> {
  const users: IssuedUser[] = [];
  for (let i = 0; i < count; i += 1) users.push(await issueUser(t));
  const publicId = randomGroupId();
  const seeded = await new Seed(t).group(
    publicId,
    users[0].id,
    users.slice(1).map((u) => u.id),
  );
  return {
    users,
    cid: groupConversationId(publicId),
    groupId: seeded.groupId,
    conversationRowId: seeded.conversationId,
  };
}

export const connectAs = (url: string, user: IssuedUser): Promise<RtClient> =>
  connect(url, { auth: { token: user.token } });

/** The events of one call received by a client, in arrival order. */
export const callEvents = (client: RtClient, callId: string): Received[] =>
  client.events.filter((e) => e.name.startsWith('call.') && (e.data.call as Call | undefined)?.call_id === callId);

/** Waits until `client` received the event with `eventId` and answers it. */
export const eventOn = (client: RtClient, eventId: string | null): Promise<Received> => {
  if (!eventId) throw new Error('no event_id to wait for');
  return client.waitForEvent(eventId);
};

/** Waits for the call.ended of a call on a client. */
export const endedOn = (client: RtClient, callId: string): Promise<Received> =>
  client.waitFor(
    () => callEvents(client, callId).find((e) => e.name === 'call.ended'),
    5000,
    `call.ended of ${callId}`,
  );

export const unknownCallId = (): string => randomUUID();

/** How long a call spec may wait for another to finish on a shared database. */
export const TIMER_LOCK_WAIT_MS = 300_000;

/**
 * A pass of the call timers ends every due call in the database, by the clock of the app that
 * runs it. On MySQL every e2e file shares one database and each app has its own test clock, so
 * one file moving its clock ahead would end another file's calls. So: this app's background
 * timer loop is stopped (the spec runs passes itself, with api.timers()), and on MySQL the call
 * specs take turns through a named lock held on one connection. Answers the release.
 */
export async function isolateCallTimers(t: TestApp, lock = true): Promise<() => Promise<void>> {
  await t.app.get(CallRoomEventsService).onModuleDestroy();
  if (t.driver !== 'mysql' || !lock) return async () => undefined;
  // Its own connection: the app's pool bounds every statement to a few seconds.
  const database = parseDatabaseUrl(process.env.E2E_DATABASE_URL ?? '');
  if (database.type !== 'mysql') throw new Error('E2E_DATABASE_URL is not a MySQL URL');
  const connection = await createConnection({
    host: database.host,
    port: database.port,
    user: database.username,
    password: database.password,
  });
  // Named per database: runs on other databases of the same server need not wait.
  const name = `im-e2e-call-timers:${database.database}`;
  const [rows] = await connection.query('SELECT GET_LOCK(?, ?) AS got', [name, TIMER_LOCK_WAIT_MS / 1000 - 10]);
  if (Number((rows as Array<{ got: unknown }>)[0]?.got) !== 1) {
    await connection.end();
    throw new Error('another call spec held the call-timer lock too long');
  }
  return async () => {
    await connection.query('SELECT RELEASE_LOCK(?)', [name]);
    await connection.end();
  };
}

/** What a call spec file shares: its app, the calls API, the listening URL and the sockets to close at the end. */
export interface CallSpecApp {
  t: TestApp;
  api: CallsApi;
  url: string;
  sockets: RtClient[];
  /** A socket of `user`, closed at the end of the file. */
  socket(user: IssuedUser): Promise<RtClient>;
  /** Sends a signed room event and expects the provider's success answer, `{"code":0}`. */
  roomOk(
    type: 102 | 103 | 104,
    call: Call,
    user: IssuedUser | string | null,
    eventMs: number,
    callbackTs?: number,
  ): Promise<void>;
}

/**
 * Registers the hooks of a call spec file: one app with its call timers isolated (see
 * isolateCallTimers), listening; at the end the sockets in `sockets` are closed and the app too.
 * The fields are set once the file's first beforeAll has run.
 */
export function useCallApp(env: Record<string, string> = {}): CallSpecApp {
  const app = { sockets: [] as RtClient[] } as CallSpecApp;
  app.socket = async (user) => {
    const s = await connectAs(app.url, user);
    app.sockets.push(s);
    return s;
  };
  app.roomOk = async (type, call, user, eventMs, callbackTs) => {
    const reply = await app.api.room(type, call.room_id, user, eventMs, callbackTs);
    expect({ status: reply.status, body: reply.body as unknown }).toEqual({ status: 200, body: { code: 0 } });
  };
  let release: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    app.t = await startTestApp(env);
    release = await isolateCallTimers(app.t);
    app.api = new CallsApi(app.t);
    app.url = await listen(app.t);
  }, TIMER_LOCK_WAIT_MS);
  afterAll(async () => {
    await release();
    for (const s of app.sockets) s.close();
    await app.t.close();
  });
  return app;
}
