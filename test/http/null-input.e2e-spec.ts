// Regression tests of issue 10, defects 1, 2 and 8: null on an optional field means "absent"
// (never a 500, never a stored null), and page, offset and limit are refused wherever they
// appear. Each refusal is checked for its code, the field its msg names, and that nothing
// changed.
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import {
  IssuedUser,
  TestApp,
  bearer,
  hostAuth,
  issueUser,
  okData,
  randomGroupId,
  randomUserId,
  startTestApp,
} from '../helpers/test-app';

type Body = Record<string, unknown>;

interface UserData {
  id: string;
  user_id: string;
  username: string;
  nickname: string;
  avatar: string;
  signature: string;
  profile_updated_at: number;
}

function refused(response: Response, code: number, field: string): void {
  expect({ status: response.status, body: response.body }).toEqual({
    status: 200,
    body: { code, msg: expect.any(String), data: null },
  });
  // The msg starts with the refused field's path: "member_ids[0]: must be a string".
  expect(response.body.msg).toMatch(new RegExp(`^${field.replace(/[[\]]/g, '\\$&')}: `));
}

const unique = (prefix: string): string => `${prefix}_${randomBytes(6).toString('hex')}`;

describe('Null input and refused paging parameters (issue 10: 1, 2, 8)', () => {
  let t: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  const token = (body: Body, query = '') =>
    t.http
      .post(`/app/sdk/token${query}`)
      .set(...hostAuth())
      .send(body);
  const upsert = (body: Body) =>
    t.http
      .post('/app/sdk/users/upsert')
      .set(...hostAuth())
      .send(body);
  const post = (user: IssuedUser, path: string, body: unknown) =>
    t.http
      .post(path)
      .set(...bearer(user.token))
      .send(body as object);
  const get = (user: IssuedUser, path: string) => t.http.get(path).set(...bearer(user.token));

  /** The stored row, straight from the database. */
  async function row(externalId: string): Promise<(Body & { profile_updated_at: number }) | null> {
    const rows: Body[] = await db.query(
      'SELECT username, nickname, avatar, signature, profile_updated_at, token_version FROM users WHERE external_id = ?',
      [externalId],
    );
    return rows[0]
      ? {
          ...rows[0],
          profile_updated_at: Number(rows[0].profile_updated_at),
          token_version: Number(rows[0].token_version),
        }
      : null;
  }

  async function fullUser(): Promise<{ user: IssuedUser; profile: Body }> {
    const fields = { username: unique('name'), avatar: 'https://cdn.example.com/a.png', signature: 'hello there' };
    const user = await issueUser(t, { nickname: 'Original', ...fields });
    return { user, profile: { ...fields, nickname: 'Original' } };
  }

  describe('defect 1: null profile fields keep the stored value', () => {
    it.each([
      ['POST /app/sdk/token', '/app/sdk/token'],
      ['POST /app/sdk/users/upsert', '/app/sdk/users/upsert'],
    ])('%s: avatar, signature and username null keep each stored value, alone or together', async (_name, path) => {
      const { user, profile } = await fullUser();
      const before = await row(user.userId);
      for (const nulls of [
        { avatar: null },
        { signature: null },
        { username: null },
        { avatar: null, signature: null, username: null },
      ]) {
        const data = okData<{ user: UserData }>(
          await t.http
            .post(path)
            .set(...hostAuth())
            .send({ user_id: user.userId, nickname: 'Original', ...nulls }),
        );
        expect(data.user).toEqual({
          id: user.id,
          user_id: user.userId,
          ...profile,
          profile_updated_at: before!.profile_updated_at,
        });
      }
      expect(await row(user.userId)).toEqual(before);
    });

    it('null next to a real change changes only the real field', async () => {
      const { user, profile } = await fullUser();
      const before = await row(user.userId);
      t.clock.advance(5);
      const data = okData<{ user: UserData }>(
        await upsert({ user_id: user.userId, nickname: 'Renamed', avatar: null, signature: null, username: null }),
      );
      expect(data.user).toMatchObject({ ...profile, nickname: 'Renamed' });
      expect(data.user.profile_updated_at).toBeGreaterThan(before!.profile_updated_at);
      expect(await row(user.userId)).toEqual({
        ...before,
        nickname: 'Renamed',
        profile_updated_at: data.user.profile_updated_at,
      });
    });

    it('a new user created with nulls gets the empty values (default avatar, no username)', async () => {
      const userId = randomUserId();
      const data = okData<{ user: UserData; token: string }>(
        await token({ user_id: userId, nickname: 'New', avatar: null, signature: null, username: null }),
      );
      expect(data.user).toMatchObject({
        user_id: userId,
        username: '',
        avatar: 'http://im.test/static/default-avatar.svg',
        signature: '',
      });
      expect(await row(userId)).toMatchObject({ username: null, avatar: '', signature: '' });
    });

    it('device fields sent as null are absent: a token with push {}', async () => {
      const { user } = await fullUser();
      const data = okData<{ push: Body }>(
        await token({
          user_id: user.userId,
          nickname: 'Original',
          platform: null,
          manufacturer: null,
          package_name: null,
        }),
      );
      expect(data.push).toEqual({});
      // One of the three sent with the others null is still an incomplete set.
      refused(
        await token({
          user_id: user.userId,
          nickname: 'Original',
          platform: 'android',
          manufacturer: null,
          package_name: 'com.x',
        }),
        1004,
        'manufacturer',
      );
    });

    it('a required field sent as null is refused with 1004 naming it, and nothing is stored', async () => {
      const { user } = await fullUser();
      const before = await row(user.userId);
      refused(await token({ user_id: user.userId, nickname: null }), 1004, 'nickname');
      refused(
        await upsert({ user_id: user.userId, nickname: null, avatar: 'https://x.example/b.png' }),
        1004,
        'nickname',
      );
      refused(await token({ user_id: null, nickname: 'X' }), 1004, 'user_id');
      expect(await row(user.userId)).toEqual(before);
    });

    it('wrong types are 1004 naming the field, with the profile unchanged', async () => {
      const { user } = await fullUser();
      const before = await row(user.userId);
      for (const [field, value] of [
        ['avatar', 42],
        ['avatar', { url: 'https://x.example/a.png' }],
        ['signature', ['a']],
        ['username', false],
        ['nickname', ['Original']],
      ] as const) {
        refused(await upsert({ user_id: user.userId, nickname: 'Original', [field]: value }), 1004, field);
      }
      expect(await row(user.userId)).toEqual(before);
    });

    it('POST /app/sdk/users/me/update: null keeps a field; only nulls is 1004 naming the body', async () => {
      const { user, profile } = await fullUser();
      const before = await row(user.userId);
      refused(
        await post(user, '/app/sdk/users/me/update', {
          nickname: null,
          avatar: null,
          signature: null,
          username: null,
          user_id: null,
        }),
        1004,
        'body',
      );
      expect(await row(user.userId)).toEqual(before);
      t.clock.advance(5);
      const data = okData<{ user: UserData; event_id: string | null }>(
        await post(user, '/app/sdk/users/me/update', {
          nickname: 'Mine',
          avatar: null,
          signature: null,
          username: null,
          user_id: null,
        }),
      );
      expect(data.user).toMatchObject({ ...profile, nickname: 'Mine' });
      expect(data.event_id).toEqual(expect.any(String));
      expect(await row(user.userId)).toMatchObject({
        ...before,
        nickname: 'Mine',
        profile_updated_at: data.user.profile_updated_at,
      });
    });
  });

  describe('defect 2: null cursors and optional fields are absent', () => {
    it('POST /app/sdk/sync with cursor null answers the first page, as without a cursor', async () => {
      const me = await issueUser(t);
      const plain = okData<{ conversations: Body }>(await post(me, '/app/sdk/sync', {}));
      const withNull = okData<{ conversations: Body }>(await post(me, '/app/sdk/sync', { cursor: null }));
      expect(withNull.conversations).toEqual(plain.conversations);
    });

    it.each([[42], [true], [{}], [['a.b']], [''], ['garbage']])(
      'POST /app/sdk/sync with cursor %p is 1004 naming the cursor',
      async (cursor) => {
        const me = await issueUser(t);
        refused(await post(me, '/app/sdk/sync', { cursor }), 1004, 'cursor');
      },
    );

    it('a JSON body that is null, an array or a string is 1004', async () => {
      const me = await issueUser(t);
      for (const body of ['null', '[]', '"x"', '[{"cursor":null}]']) {
        const response = await t.http
          .post('/app/sdk/sync')
          .set(...bearer(me.token))
          .set('Content-Type', 'application/json')
          .send(body);
        expect({ status: response.status, code: response.body.code, data: response.body.data }).toEqual({
          status: 200,
          code: 1004,
          data: null,
        });
      }
    });

    it('groups: null optional fields on create are absent; an update of only nulls changes nothing', async () => {
      const owner = await issueUser(t);
      const groupId = randomGroupId();
      const created = okData<{ group: Body }>(
        await post(owner, '/app/sdk/groups/create', {
          group_id: groupId,
          name: 'G',
          avatar: null,
          introduction: null,
          member_ids: null,
        }),
      );
      expect(created.group).toMatchObject({ group_id: groupId, name: 'G', introduction: '' });
      const generated = okData<{ group: { group_id: string } }>(
        await post(owner, '/app/sdk/groups/create', { group_id: null, name: 'H' }),
      );
      expect(generated.group.group_id).toEqual(expect.any(String));
      refused(
        await post(owner, '/app/sdk/groups/update', {
          group_id: groupId,
          name: null,
          avatar: null,
          introduction: null,
        }),
        1004,
        'name',
      );
      const before = t.clock.now();
      const invitation = okData<{ code: string; expires_at: number }>(
        await post(owner, '/app/sdk/groups/invitations/create', { group_id: groupId, ttl_seconds: null }),
      );
      // Absent ttl_seconds: the configured maximum (7 days by default).
      expect(invitation.expires_at - before).toBeGreaterThanOrEqual(604800 * 1000);
      const after = okData<{ group: Body }>(await get(owner, `/app/sdk/groups/get?group_id=${groupId}`));
      expect(after.group).toMatchObject({ name: 'G', introduction: '' });
    });

    it('wrong types inside arrays are 1004 naming the item, and no group is created', async () => {
      const owner = await issueUser(t);
      const groupId = randomGroupId();
      refused(
        await post(owner, '/app/sdk/groups/create', { group_id: groupId, name: 'G', member_ids: [null] }),
        1004,
        'member_ids[0]',
      );
      refused(
        await post(owner, '/app/sdk/groups/create', { group_id: groupId, name: 'G', member_ids: [{ user_id: 'x' }] }),
        1004,
        'member_ids[0]',
      );
      refused(
        await post(owner, '/app/sdk/groups/create', { group_id: groupId, name: 'G', member_ids: 'u_1' }),
        1004,
        'member_ids',
      );
      expect(await db.query('SELECT id FROM `groups` WHERE public_id = ?', [groupId])).toEqual([]);
    });

    it('friend request message null is absent; reports with null optional fields are stored', async () => {
      const [a, b] = [await issueUser(t), await issueUser(t)];
      const sent = okData<{ request: Body }>(
        await post(a, '/app/sdk/friends/requests', { user_id: b.userId, request_id: unique('fr'), message: null }),
      );
      expect(sent.request).toMatchObject({ message: '' });
      const requestId = unique('rpt');
      const report = okData<Body>(
        await post(a, '/app/sdk/reports/user', {
          request_id: requestId,
          reason_code: 1,
          user_id: b.userId,
          description: null,
          conversation_id: null,
          message_ids: null,
        }),
      );
      expect(report).toMatchObject({ request_id: requestId, status: 'pending', created: true });
      refused(
        await post(a, '/app/sdk/reports/user', {
          request_id: unique('rpt'),
          reason_code: 1,
          user_id: b.userId,
          message_ids: [null],
        }),
        1004,
        'message_ids[0]',
      );
    });
  });

  describe('defect 8: page, offset and limit are refused wherever they appear', () => {
    const PARAMS = ['page', 'offset', 'limit'];

    it.each(PARAMS)('POST /app/sdk/sync?%s=1 with body {} is 1004 naming it', async (param) => {
      const me = await issueUser(t);
      refused(
        await t.http
          .post(`/app/sdk/sync?${param}=1`)
          .set(...bearer(me.token))
          .send({}),
        1004,
        param,
      );
      refused(await post(me, '/app/sdk/sync', { [param]: 1 }), 1004, param);
      refused(await post(me, '/app/sdk/sync', { [param]: null }), 1004, param);
    });

    it.each(PARAMS)('%s in the query of GET routes without paging is 1004 naming it', async (param) => {
      const me = await issueUser(t);
      for (const path of [
        '/app/sdk/users/me',
        '/app/sdk/unread',
        '/app/sdk/friends',
        `/app/sdk/users/profile?user_id=${me.userId}`,
        '/health',
      ]) {
        const separator = path.includes('?') ? '&' : '?';
        refused(await get(me, `${path}${separator}${param}=1`), 1004, param);
      }
    });

    it('every spelling of the key is refused: repeated, bracketed, URL-encoded, empty value', async () => {
      const me = await issueUser(t);
      for (const query of ['limit=1&limit=2', 'limit[]=1', 'limit[a]=1', '%6C%69mit=5', 'offset=', 'page']) {
        refused(
          await get(me, `/app/sdk/unread?${query}`),
          1004,
          query.startsWith('%') ? 'limit' : query.replace(/[[=&].*$/, ''),
        );
      }
    });

    it('a cursor sent as a list or an object (cursor[]=a&cursor[]=b, cursor[x]=a) is 1004 naming cursor, not the first page', async () => {
      const me = await issueUser(t);
      for (const query of [
        'cursor[]=a&cursor[]=b',
        'cursor[]=a',
        'cursor[x]=a',
        'cursor%5B%5D=a',
        'cursor=a&cursor=b',
      ]) {
        refused(await get(me, `/app/sdk/friends?${query}`), 1004, 'cursor');
        refused(await get(me, `/app/sdk/groups?${query}`), 1004, 'cursor');
      }
      // The plain spelling still pages.
      expect((await get(me, '/app/sdk/friends')).body).toEqual(
        expect.objectContaining({ code: 0, data: expect.objectContaining({ next_cursor: null }) }),
      );
    });

    it('a write carrying one of them is refused and changes nothing', async () => {
      const { user } = await fullUser();
      const before = await row(user.userId);
      refused(await post(user, '/app/sdk/users/me/update?limit=1', { nickname: 'Changed' }), 1004, 'limit');
      refused(await post(user, '/app/sdk/users/me/update', { nickname: 'Changed', page: 2 }), 1004, 'page');
      refused(await token({ user_id: user.userId, nickname: 'Changed' }, '?offset=0'), 1004, 'offset');
      refused(await upsert({ user_id: user.userId, nickname: 'Changed', offset: 0 }), 1004, 'offset');
      expect(await row(user.userId)).toEqual(before);
      const newcomer = randomUserId();
      refused(await token({ user_id: newcomer, nickname: 'N', limit: 10 }), 1004, 'limit');
      expect(await row(newcomer)).toBeNull();
    });

    it('is refused before authentication: the same answer without a credential', async () => {
      // The parameter rule applies before authentication, so it never depends on who asks.
      const response = await t.http.post('/app/sdk/sync?page=1').send({});
      refused(response, 1004, 'page');
    });

    it('nested fields named like them are data, not paging: a custom message with data.limit is sent', async () => {
      const owner = await issueUser(t);
      const groupId = randomGroupId();
      okData(await post(owner, '/app/sdk/groups/create', { group_id: groupId, name: 'G' }));
      const sent = okData<{ message: { content: Body } }>(
        await post(owner, '/app/sdk/messages/send', {
          conversation_id: `group_${groupId}`,
          client_message_id: unique('c'),
          type: 'custom',
          content: { data: { limit: 5, page: 1 } },
        }),
      );
      expect(sent.message.content).toEqual({ data: { limit: 5, page: 1 }, description: '' });
    });

    it('a send with ?limit=1 is refused and stores no message', async () => {
      const owner = await issueUser(t);
      const groupId = randomGroupId();
      okData(await post(owner, '/app/sdk/groups/create', { group_id: groupId, name: 'G' }));
      const clientMessageId = unique('c');
      const body = {
        conversation_id: `group_${groupId}`,
        client_message_id: clientMessageId,
        type: 'text',
        content: { text: 'hi' },
      };
      refused(
        await t.http
          .post('/app/sdk/messages/send?limit=1')
          .set(...bearer(owner.token))
          .send(body),
        1004,
        'limit',
      );
      expect(await db.query('SELECT id FROM messages WHERE client_message_id = ?', [clientMessageId])).toEqual([]);
    });

    it('the room callback keeps the provider format: HTTP 403 {"code":1} for an unsigned request with ?limit=1', async () => {
      const response = await t.http
        .post('/app/sdk/rtc/room-callback?limit=1')
        .set('Content-Type', 'application/json')
        .send('{"limit":1}');
      expect({ status: response.status, body: response.body }).toEqual({ status: 403, body: { code: 1 } });
    });
  });
});
