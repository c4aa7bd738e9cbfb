// Black-box tests of authentication (spec 5, 7) on the IM-token endpoints and the host-secret
// endpoints, and of POST /app/sdk/users/upsert (profile rules of spec 2.1, 2.3, 4.1, 8).
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { TestApp, hostAuth, randomUserId, startTestApp } from '../helpers/test-app';
import { ApiClient } from '../helpers/api-client';
import { expectFail } from '../helpers/assertions';

type Body = Record<string, unknown>;

const DEFAULT_AVATAR = 'http://im.test/static/default-avatar.svg';

describe('Authentication and user management (spec 5, 7)', () => {
  let t: TestApp;
  let db: DataSource;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
    api = new ApiClient(t);
  });
  afterAll(() => t.close());
  beforeAll(async () => {});
  const userRow = async (externalId: string): Promise<Array<Record<string, unknown>>> =>
    db.query('SELECT * FROM users WHERE external_id = ?', [externalId]);

  describe('POST /app/sdk/users/upsert', () => {
    it('creates a user and returns only {user}, with no token, and the token endpoint then finds the same user', async () => {
      const userId = randomUserId();
      const response = await api.raw.upsertUser({
        user_id: userId,
        nickname: 'Carol',
        username: `carol_${userId.slice(-6)}`,
        signature: 'hi',
      });
      expect(response.status).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.body).toMatchObject({ code: 0, msg: 'ok' });
      expect(Object.keys(response.body.data)).toEqual(['user']);
      const user = response.body.data.user;
      expect(user).toEqual({
        id: expect.stringMatching(/^[1-9][0-9]*$/),
        user_id: userId,
        username: `carol_${userId.slice(-6)}`,
        nickname: 'Carol',
        avatar: DEFAULT_AVATAR,
        signature: 'hi',
        profile_updated_at: expect.any(Number),
      });
      expect(user.profile_updated_at).toBeGreaterThan(1_000_000_000_000);
      const issued = await api.raw.token({
        user_id: userId,
        nickname: 'Carol',
        username: `carol_${userId.slice(-6)}`,
        signature: 'hi',
      });
      expect(issued.body.data.user).toEqual(user);
    });

    it('keeps one user under ten concurrent first upserts', async () => {
      const userId = randomUserId();
      const replies = await Promise.all(
        Array.from({ length: 10 }, () => api.raw.upsertUser({ user_id: userId, nickname: 'Racer' })),
      );
      expect(replies.map((r) => r.body.code)).toEqual(Array(10).fill(0));
      expect(new Set(replies.map((r) => r.body.data.user.id)).size).toBe(1);
      expect(await userRow(userId)).toHaveLength(1);
    });

    it('moves profile_updated_at only when something changes', async () => {
      const userId = randomUserId();
      const body = {
        user_id: userId,
        nickname: 'Dora',
        username: `dora_${userId.slice(-6)}`,
        avatar: 'https://cdn.example.com/d.png',
        signature: 'sig',
      };
      const first = (await api.raw.upsertUser(body)).body.data.user;
      t.clock.advance(5_000);
      const same = await api.raw.upsertUser(body);
      expect(same.body.data.user).toEqual(first);
      t.clock.advance(5_000);
      const viaToken = await api.raw.token(body);
      expect(viaToken.body.data.user).toEqual(first);
      t.clock.advance(5_000);
      const before = t.clock.now();
      const changed = (await api.raw.upsertUser({ ...body, nickname: 'Dora 2' })).body.data.user;
      expect(changed.nickname).toBe('Dora 2');
      expect(changed.profile_updated_at).toBeGreaterThanOrEqual(before);
      t.clock.advance(5_000);
      for (const field of ['username', 'avatar', 'signature'] as const) {
        const previous = (await api.raw.upsertUser({ ...body, nickname: 'Dora 2' })).body.data.user.profile_updated_at;
        t.clock.advance(5_000);
        const value = field === 'avatar' ? 'https://cdn.example.com/other.png' : `${body[field]}x`;
        const next = (await api.raw.upsertUser({ ...body, nickname: 'Dora 2', [field]: value })).body.data.user;
        expect(next[field]).toBe(value);
        expect(next.profile_updated_at).toBeGreaterThan(previous);
        await api.raw.upsertUser({ ...body, nickname: 'Dora 2' });
        t.clock.advance(5_000);
      }
    });

    it('does not move profile_updated_at when an empty avatar resolves to the default already stored', async () => {
      const userId = randomUserId();
      const first = (await api.raw.upsertUser({ user_id: userId, nickname: 'Eve' })).body.data.user;
      expect(first.avatar).toBe(DEFAULT_AVATAR);
      t.clock.advance(5_000);
      const second = (await api.raw.upsertUser({ user_id: userId, nickname: 'Eve', avatar: '' })).body.data.user;
      expect(second).toEqual(first);
    });

    it('does not move profile_updated_at when the avatar is sent as the default URL it already shows', async () => {
      const userId = randomUserId();
      const first = (await api.raw.upsertUser({ user_id: userId, nickname: 'Gus' })).body.data.user;
      t.clock.advance(5_000);
      const second = (await api.raw.upsertUser({ user_id: userId, nickname: 'Gus', avatar: DEFAULT_AVATAR })).body.data
        .user;
      expect(second).toEqual(first);
    });

    it('treats user_ids differing only in letter case as different users', async () => {
      const lower = randomUserId('case');
      const a = await api.user({ user_id: lower });
      const b = await api.user({ user_id: lower.toUpperCase() });
      expect(b.id).not.toBe(a.id);
      const upserted = await api.raw.upsertUser({ user_id: lower.toUpperCase(), nickname: 'Upper' });
      expect(upserted.body.data.user.id).toBe(b.id);
      expect((await userRow(lower))[0].nickname).not.toBe('Upper');
    });

    it('resets an avatar to the default URL when sent empty', async () => {
      const userId = randomUserId();
      await api.raw.upsertUser({ user_id: userId, nickname: 'Fay', avatar: 'https://cdn.example.com/f.png' });
      const reset = await api.raw.upsertUser({ user_id: userId, nickname: 'Fay', avatar: '' });
      expect(reset.body.data.user.avatar).toBe(DEFAULT_AVATAR);
    });

    describe('username uniqueness', () => {
      it("refuses taking another user's username with 1004 naming username and changes nothing", async () => {
        const owner = randomUserId();
        const name = `name_${randomBytes(5).toString('hex')}`;
        expect((await api.raw.upsertUser({ user_id: owner, nickname: 'Owner', username: name })).body.code).toBe(0);
        const other = randomUserId();
        const otherUser = (await api.raw.upsertUser({ user_id: other, nickname: 'Other', signature: 'before' })).body
          .data.user;
        t.clock.advance(1_000);
        expectFail(
          await api.raw.upsertUser({ user_id: other, nickname: 'Other changed', username: name, signature: 'after' }),
          1004,
          'username',
        );
        expectFail(
          await api.raw.token({ user_id: other, nickname: 'Other changed', username: name, signature: 'after' }),
          1004,
          'username',
        );
        const rows = await userRow(other);
        expect(rows).toHaveLength(1);
        expect(rows[0].nickname).toBe('Other');
        expect(rows[0].signature).toBe('before');
        expect(Number(rows[0].profile_updated_at)).toBe(otherUser.profile_updated_at);
        const ownerRows = await userRow(owner);
        expect(ownerRows[0].username).toBe(name);
      });

      it('does not create a new user whose username is taken', async () => {
        const name = `name_${randomBytes(5).toString('hex')}`;
        await api.raw.upsertUser({ user_id: randomUserId(), nickname: 'Owner', username: name });
        for (const call of [api.raw.upsertUser, api.raw.token]) {
          const newcomer = randomUserId();
          expectFail(await call({ user_id: newcomer, nickname: 'New', username: name }), 1004, 'username');
          expect(await userRow(newcomer)).toHaveLength(0);
        }
      });

      it('lets a user keep its own username and lets another take a released one', async () => {
        const a = randomUserId();
        const b = randomUserId();
        const name = `name_${randomBytes(5).toString('hex')}`;
        expect((await api.raw.upsertUser({ user_id: a, nickname: 'A', username: name })).body.code).toBe(0);
        expect((await api.raw.upsertUser({ user_id: a, nickname: 'A again', username: name })).body.code).toBe(0);
        expect((await api.raw.upsertUser({ user_id: a, nickname: 'A again', username: `${name}_new` })).body.code).toBe(
          0,
        );
        const taken = await api.raw.upsertUser({ user_id: b, nickname: 'B', username: name });
        expect(taken.body.code).toBe(0);
        expect(taken.body.data.user.username).toBe(name);
      });

      it('allows any number of users without a username', async () => {
        for (let i = 0; i < 3; i += 1) {
          const response = await api.raw.upsertUser({ user_id: randomUserId(), nickname: 'Anon', username: '' });
          expect(response.body.code).toBe(0);
          expect(response.body.data.user.username).toBe('');
        }
      });

      it('gives a contested username to exactly one of ten concurrent users', async () => {
        const name = `race_${randomBytes(5).toString('hex')}`;
        const ids = Array.from({ length: 10 }, () => randomUserId());
        const replies = await Promise.all(
          ids.map((id) => api.raw.upsertUser({ user_id: id, nickname: 'Racer', username: name })),
        );
        const codes = replies.map((r) => r.body.code).sort();
        expect(codes).toEqual([0, ...Array(9).fill(1004)]);
        const rows: Array<Record<string, unknown>> = await db.query('SELECT * FROM users WHERE username = ?', [name]);
        expect(rows).toHaveLength(1);
      });
    });

    describe.each(['/app/sdk/users/upsert', '/app/sdk/token'])('profile field rules on %s', (path) => {
      const call = (body: Body) =>
        t.http
          .post(path)
          .set(...hostAuth())
          .send(body);
      const emoji = '😀';

      it.each<[string, string]>([
        ['64 characters', `x${randomBytes(32).toString('hex').slice(0, 63)}`],
        ['64 emoji', `${emoji.repeat(60)}${randomBytes(2).toString('hex')}`],
        ['an inner space', `a b ${randomBytes(4).toString('hex')}`],
      ])('accepts a user_id of %s', async (_label, userId) => {
        const response = await call({ user_id: userId, nickname: 'N' });
        expect(response.body.code).toBe(0);
        expect(response.body.data.user.user_id).toBe(userId);
      });

      it('accepts a nickname of 80 characters and of 80 emoji, and stores them unchanged', async () => {
        for (const nickname of ['n'.repeat(80), emoji.repeat(80)]) {
          const userId = randomUserId();
          const response = await call({ user_id: userId, nickname });
          expect(response.body.code).toBe(0);
          expect(response.body.data.user.nickname).toBe(nickname);
          expect((await userRow(userId))[0].nickname).toBe(nickname);
        }
      });

      it('accepts username of 64, signature of 255 (also as emoji) and avatar of 1024 characters', async () => {
        const avatarBase = 'https://cdn.example.com/';
        const body = {
          user_id: randomUserId(),
          nickname: 'Limits',
          username: `u${randomBytes(32).toString('hex').slice(0, 63)}`,
          signature: emoji.repeat(255),
          avatar: `${avatarBase}${'a'.repeat(1024 - avatarBase.length)}`,
        };
        const response = await call(body);
        expect(response.body.code).toBe(0);
        expect(response.body.data.user).toMatchObject({
          username: body.username,
          signature: body.signature,
          avatar: body.avatar,
        });
        const plain = await call({ user_id: randomUserId(), nickname: 'Limits', signature: 's'.repeat(255) });
        expect(plain.body.code).toBe(0);
      });

      it.each<[string, string, unknown]>([
        ['user_id', 'missing', undefined],
        ['user_id', 'empty', ''],
        ['user_id', '65 characters', 'x'.repeat(65)],
        ['user_id', '65 emoji', emoji.repeat(65)],
        ['user_id', 'a leading space', ' abc'],
        ['user_id', 'a trailing space', 'abc '],
        ['user_id', 'a leading no-break space', '\u00a0abc'],
        ['user_id', 'a trailing ideographic space', 'abc\u3000'],
        ['user_id', 'a NUL', 'a\u0000b'],
        ['user_id', 'a newline', 'a\nb'],
        ['user_id', 'a tab', 'a\tb'],
        ['user_id', 'DEL', 'a\u007fb'],
        ['user_id', 'U+0085', 'a\u0085b'],
        ['user_id', 'a number', 12345],
        ['user_id', 'null', null],
        ['user_id', 'an array', ['abc']],
        ['user_id', 'an object', { id: 'abc' }],
        ['user_id', 'a lone surrogate', 'x\udc00y'],
        ['nickname', 'missing', undefined],
        ['nickname', 'empty', ''],
        ['nickname', 'only spaces', '   '],
        ['nickname', '81 characters', 'n'.repeat(81)],
        ['nickname', '81 emoji', emoji.repeat(81)],
        ['nickname', 'a leading space', ' Nick'],
        ['nickname', 'a trailing space', 'Nick '],
        ['nickname', 'a trailing no-break space', 'Nick\u00a0'],
        ['nickname', 'a NUL', 'Ni\u0000ck'],
        ['nickname', 'a newline', 'Ni\nck'],
        ['nickname', 'DEL', 'Ni\u007fck'],
        ['nickname', 'U+0085', 'Ni\u0085ck'],
        ['nickname', 'a number', 42],
        ['nickname', 'null', null],
        ['nickname', 'an array', ['Nick']],
        ['nickname', 'an object', { name: 'Nick' }],
        ['nickname', 'a lone surrogate', 'Ni\ud800ck'],
        ['username', '65 characters', 'u'.repeat(65)],
        ['username', 'a NUL', 'u\u0000v'],
        ['username', 'a newline', 'u\nv'],
        ['username', 'U+0085', 'u\u0085v'],
        ['username', 'a number', 7],
        ['username', 'an array', ['u']],
        ['signature', '256 characters', 's'.repeat(256)],
        ['signature', '256 emoji', emoji.repeat(256)],
        ['signature', 'a NUL', 's\u0000t'],
        ['signature', 'DEL', 's\u007ft'],
        ['signature', 'U+0085', 's\u0085t'],
        ['signature', 'a boolean', true],
        ['signature', 'an object', { text: 's' }],
        ['avatar', '1025 characters', `https://cdn.example.com/${'a'.repeat(1025 - 24)}`],
        ['avatar', 'an ftp URL', 'ftp://cdn.example.com/a.png'],
        ['avatar', 'a javascript: URL', 'javascript:alert(1)'],
        ['avatar', 'a data: URL', 'data:image/png;base64,AAAA'],
        ['avatar', 'not a URL', 'not a url'],
        ['avatar', 'a scheme-relative URL', '//cdn.example.com/a.png'],
        ['avatar', 'a URL without host', 'http://'],
        ['avatar', 'a URL with a leading space', ' https://cdn.example.com/a.png'],
        ['avatar', 'a newline inside', 'https://cdn.example.com/a\n.png'],
        ['avatar', 'a number', 1],
        ['avatar', 'an array', ['https://cdn.example.com/a.png']],
      ])('refuses %s that is %s with 1004 naming the field', async (field, _label, value) => {
        const body: Body = { user_id: randomUserId(), nickname: 'Valid' };
        if (value === undefined) delete body[field];
        else body[field] = value;
        expectFail(await call(body), 1004, field);
        if (field !== 'user_id') expect(await userRow(body.user_id as string)).toHaveLength(0);
      });

      it('changes nothing when one field of an update is invalid', async () => {
        const userId = randomUserId();
        const first = (await call({ user_id: userId, nickname: 'Before', signature: 'kept' })).body.data.user;
        t.clock.advance(1_000);
        expectFail(
          await call({ user_id: userId, nickname: 'After', signature: 'changed', avatar: 'ftp://x/a.png' }),
          1004,
          'avatar',
        );
        const rows = await userRow(userId);
        expect(rows[0].nickname).toBe('Before');
        expect(rows[0].signature).toBe('kept');
        expect(Number(rows[0].profile_updated_at)).toBe(first.profile_updated_at);
      });
    });
  });
});
