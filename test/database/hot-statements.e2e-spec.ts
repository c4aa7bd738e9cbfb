import { AsyncLocalStorage } from 'node:async_hooks';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { IncomingMessage, Server, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { DataSource, QueryRunner } from 'typeorm';
import { OutboxSequencer } from '../../src/outbox/outbox-sequencer';
import { Seed, clientErrorBody } from '../helpers/factories';
import {
  IssuedUser,
  TestApp,
  bearer,
  friendConversationId,
  hostAuth,
  issueUser,
  okData,
  randomGroupId,
  startTestApp,
  uuidV4,
} from '../helpers/test-app';

/**
 * The SQL text of the hot paths, compared with the reviewed files src/queries/hot-paths.<driver>.sql
 * (immich keeps its repository queries in reviewed .sql files the same way). A change to a hot
 * statement, or a statement more or fewer on a hot path, fails here until the file is updated
 * with `UPDATE_SQL_SNAPSHOTS=1`, so that it is seen in review: the shape of these statements
 * (their locks, index hints and round trips) is what docs/concurrency.md and the benchmark rely on.
 *
 * Only the statements a request issues are recorded: each request runs in an async context that
 * the recorder checks, and the outbox sequencer (which a commit wakes, and whose rounds depend on
 * timing) is kept asleep. Every flow runs once unrecorded first, so caches are warm as in steady
 * state; the token check's cache is off (AUTH_CACHE_MS=0), so every request shows its user lookup.
 */
const recording = new AsyncLocalStorage<string[]>();

function recordRequests(server: Server): void {
  const handlers = server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>;
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const sink = active;
    const handle = (): void => handlers.forEach((handler) => handler.call(server, req, res));
    if (sink) recording.run(sink, handle);
    else handle();
  });
}

let active: string[] | null = null;
/** Drops what the flow's setup recorded: only the request after it counts. */
const restart = (): void => {
  if (active) active.length = 0;
};

function recordStatements(dataSource: DataSource): void {
  // TypeORM writes some query-builder values into the text on SQLite (times in ms); they are not part of the shape.
  const normalize = (sql: string): string =>
    sql
      .replace(/\s+/g, ' ')
      .replace(/\b\d{13}\b/g, '<ms>')
      .trim();
  const probe = dataSource.createQueryRunner();
  const proto = Object.getPrototypeOf(probe) as QueryRunner;
  void probe.release();
  const query = proto.query;
  proto.query = function (this: QueryRunner, sql: string, ...rest: unknown[]) {
    recording.getStore()?.push(normalize(sql));
    return (query as (...args: unknown[]) => Promise<unknown>).call(this, sql, ...rest);
  } as QueryRunner['query'];
  // Statements kept prepared on MySQL (queryPrepared) go to the pool directly.
  const pool = (dataSource.driver as unknown as { pool?: { execute: (...args: unknown[]) => unknown } }).pool;
  if (pool) {
    const execute = pool.execute.bind(pool);
    pool.execute = (sql: unknown, ...rest: unknown[]) => {
      recording.getStore()?.push(`${normalize(String(sql))} /* prepared */`);
      return execute(sql, ...rest);
    };
  }
}

describe('hot statements (SQL text of the hot paths, reviewed in src/queries)', () => {
  let t: TestApp;
  let seed: Seed;
  const sections: string[] = [];

  beforeAll(async () => {
    // Every request reads the user's token version: with a cache, whether a request reads it would depend on timing.
    t = await startTestApp({ AUTH_CACHE_MS: '0' });
    seed = new Seed(t);
    jest.spyOn(t.app.get(OutboxSequencer), 'kick').mockImplementation(() => undefined);
    recordStatements(t.app.get(DataSource));
    // supertest listens on the server it is given; requests then reach its 'request' listeners.
    recordRequests(t.app.getHttpServer() as Server);
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await t.close();
  });

  /** Runs `flow` twice and records the statements of the second run. */
  async function capture(name: string, flow: () => Promise<void>): Promise<void> {
    await flow();
    const statements: string[] = [];
    active = statements;
    try {
      await flow();
    } finally {
      active = null;
    }
    expect(statements.length).toBeGreaterThan(0);
    sections.push(`-- ${name}\n${statements.map((sql) => `${sql};`).join('\n')}\n`);
  }

  async function send(user: IssuedUser, conversationId: string): Promise<{ seq: string; mid: string }> {
    const data = okData<{ message: { conversation_seq: string; mid: string } }>(
      await t.http
        .post('/app/sdk/messages/send')
        .set(...bearer(user.token))
        .send({
          conversation_id: conversationId,
          client_message_id: uuidV4(),
          type: 'text',
          content: { text: 'hello' },
        }),
    );
    return { seq: data.message.conversation_seq, mid: data.message.mid };
  }

  it('records every hot path and matches the reviewed file', async () => {
    const alice = await issueUser(t);
    const bob = await issueUser(t);
    await seed.friends(alice.id, bob.id);
    const toBob = friendConversationId(bob);
    const toAlice = friendConversationId(alice);
    const publicId = randomGroupId();
    await seed.group(publicId, alice.id, [bob.id]);
    const group = `group_${publicId}`;

    await capture('token, existing user: POST /app/sdk/token', async () => {
      okData(
        await t.http
          .post('/app/sdk/token')
          .set(...hostAuth())
          .send({ user_id: alice.userId, nickname: 'Alice' }),
      );
    });
    await capture('send, one-to-one: POST /app/sdk/messages/send', async () => {
      await send(alice, toBob);
    });
    await capture('send, group: POST /app/sdk/messages/send', async () => {
      await send(alice, group);
    });
    await capture('sync, first page: POST /app/sdk/sync', async () => {
      okData(
        await t.http
          .post('/app/sdk/sync')
          .set(...bearer(bob.token))
          .send({}),
      );
    });
    await capture('unread: GET /app/sdk/unread', async () => {
      okData(await t.http.get('/app/sdk/unread').set(...bearer(bob.token)));
    });
    await capture('messages, calibration unchanged: GET /app/sdk/messages', async () => {
      const window = okData<{ last_seq: string; updated_at: number; deletion_revision: string }>(
        await t.http
          .get('/app/sdk/messages')
          .set(...bearer(bob.token))
          .query({
            conversation_id: toAlice,
            known_last_seq: '0',
            known_updated_at: '0',
            known_deletion_revision: '0',
          }),
      );
      const known = {
        known_last_seq: window.last_seq,
        known_updated_at: String(window.updated_at),
        known_deletion_revision: window.deletion_revision,
      };
      restart();
      okData(
        await t.http
          .get('/app/sdk/messages')
          .set(...bearer(bob.token))
          .query({ conversation_id: toAlice, ...known }),
      );
    });
    await capture('read, one-to-one: POST /app/sdk/messages/read', async () => {
      const { seq } = await send(alice, toBob);
      restart();
      okData(
        await t.http
          .post('/app/sdk/messages/read')
          .set(...bearer(bob.token))
          .send({ conversation_id: toAlice, read_seq: seq }),
      );
    });
    await capture('recall, group: POST /app/sdk/messages/recall', async () => {
      const { mid } = await send(alice, group);
      restart();
      okData(
        await t.http
          .post('/app/sdk/messages/recall')
          .set(...bearer(alice.token))
          .send({ conversation_id: group, mid }),
      );
    });

    // The locking paths: membership changes lock the member rows, then the conversation; a
    // friend accept locks both users; a call answer locks the call.
    const post = async <T>(user: IssuedUser, path: string, body: Record<string, unknown>): Promise<T> =>
      okData<T>(
        await t.http
          .post(path)
          .set(...bearer(user.token))
          .send(body),
      );
    await capture('friend request accept: POST /app/sdk/friends/requests/accept', async () => {
      const [asker, answerer] = [await issueUser(t), await issueUser(t)];
      const { request } = await post<{ request: { id: string } }>(asker, '/app/sdk/friends/requests', {
        user_id: answerer.userId,
        request_id: uuidV4(),
      });
      restart();
      await post(answerer, '/app/sdk/friends/requests/accept', { id: request.id });
    });
    await capture('group members add: POST /app/sdk/groups/members/add', async () => {
      const joiner = await issueUser(t);
      restart();
      await post(alice, '/app/sdk/groups/members/add', { group_id: publicId, user_ids: [joiner.userId] });
    });
    await capture('group leave: POST /app/sdk/groups/leave', async () => {
      const leaver = await issueUser(t);
      await post(alice, '/app/sdk/groups/members/add', { group_id: publicId, user_ids: [leaver.userId] });
      restart();
      await post(leaver, '/app/sdk/groups/leave', { group_id: publicId });
    });
    await capture('call accept, one-to-one: POST /app/sdk/calls/accept', async () => {
      const [caller, callee] = [await issueUser(t), await issueUser(t)];
      await seed.friends(caller.id, callee.id);
      const { call } = await post<{ call: { call_id: string } }>(caller, '/app/sdk/calls/start', {
        conversation_id: friendConversationId(callee),
        media: 'audio',
        client_call_id: uuidV4(),
        device_id: 'phone',
      });
      restart();
      await post(callee, '/app/sdk/calls/accept', { call_id: call.call_id, device_id: 'phone' });
    });
    await capture('client error report: POST /app/sdk/client-errors', async () => {
      okData(
        await t.http
          .post('/app/sdk/client-errors')
          .set(...bearer(alice.token))
          .send(clientErrorBody({ userId: alice.userId }, { device_id: 'hot-phone', error_code: 'hot.path' })),
      );
    });

    const text = `-- Generated by test/database/hot-statements.e2e-spec.ts (${t.driver}); review changes, then update with UPDATE_SQL_SNAPSHOTS=1.\n\n${sections.join('\n')}`;
    const file = join(__dirname, '..', '..', 'src', 'queries', `hot-paths.${t.driver}.sql`);
    if (process.env.UPDATE_SQL_SNAPSHOTS === '1') writeFileSync(file, text);
    if (!existsSync(file))
      throw new Error(`${file} is missing: run this spec with UPDATE_SQL_SNAPSHOTS=1 and review the file`);
    expect(text.split('\n')).toEqual(readFileSync(file, 'utf8').split('\n'));
  });
});
