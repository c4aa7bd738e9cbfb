// Profiles: one's own, updateCurrentUser, public profiles and username lookup. SQL reads what no
// endpoint shows (the outbox, the stored username, how many users hold a name).
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { TestApp, bearer, hostAuth, randomUserId, startTestApp } from '../helpers/test-app';
import { ApiClient, Body, UserReply } from '../helpers/api-client';
import { expectFail, expectOk, recipientIds, storedEvent } from '../helpers/assertions';

const DEFAULT_AVATAR = 'http://im.test/static/default-avatar.svg';
const uniqueName = (prefix = 'name'): string => `${prefix}_${randomBytes(6).toString('hex')}`;

describe('Profiles: own profile, updateCurrentUser, public profiles and username lookup', () => {
  let t: TestApp;
  let db: DataSource;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
    api = new ApiClient(t);
  });
  afterAll(() => t.close());

  describe('GET /app/sdk/users/me', () => {
    it("returns the caller's user object", async () => {
      const username = uniqueName();
      const alice = await api.user({ nickname: 'Alice', username, signature: 'hi' });
      expect(expectOk<UserReply>(await api.raw.me(alice))).toEqual({
        user: {
          id: alice.id,
          user_id: alice.userId,
          username,
          nickname: 'Alice',
          avatar: DEFAULT_AVATAR,
          signature: 'hi',
          profile_updated_at: expect.any(Number),
        },
      });
    });

    it('requires an IM token', async () => {
      expectFail(await t.http.get('/app/sdk/users/me'), 1101);
      expectFail(await t.http.get('/app/sdk/users/me').set(...hostAuth()), 1102);
      expectFail(await t.http.post('/app/sdk/users/me/update').send({ nickname: 'x' }), 1101);
      expectFail(await t.http.get('/app/sdk/users/profile').query({ user_id: 'x' }), 1101);
      expectFail(await t.http.get('/app/sdk/users/lookup').query({ username: 'x' }), 1101);
    });
  });

  describe('POST /app/sdk/users/me/update', () => {
    it('changes the sent fields, moves profile_updated_at and tells the user and their friends', async () => {
      const [alice, bob, carol, stranger] = await api.users(4);
      await api.befriend(alice, bob);
      await api.befriend(carol, alice);
      const before = await api.me(alice);
      t.clock.advance(5);
      const username = uniqueName('alice');
      const reply = await api.updateMe(alice, {
        nickname: 'Alice 2',
        username,
        avatar: 'https://cdn.example.com/a.png',
        signature: 'new sig',
      });
      expect(reply).toEqual({
        user: {
          ...before,
          nickname: 'Alice 2',
          username,
          avatar: 'https://cdn.example.com/a.png',
          signature: 'new sig',
          profile_updated_at: expect.any(Number),
        },
        event_id: expect.any(String),
      });
      expect(reply.user.profile_updated_at).toBeGreaterThan(before.profile_updated_at);
      expect(await api.me(alice)).toEqual(reply.user);

      const event = await storedEvent(t, reply.event_id);
      expect(event.type).toBe('user.profile_updated');
      expect(event.payload).toEqual({ user: reply.user });
      expect(recipientIds(event)).toEqual([alice.id, bob.id, carol.id].sort());
      expect(recipientIds(event)).not.toContain(stranger.id);

      // Absent and null keep values; only what is sent changes.
      const partial = await api.updateMe(alice, { signature: '', nickname: null });
      expect(partial.user).toEqual({ ...reply.user, signature: '', profile_updated_at: expect.any(Number) });
    });

    it('changes nothing and writes no event when the values are already stored', async () => {
      const username = uniqueName();
      const alice = await api.user({ nickname: 'Same', username, avatar: 'https://cdn.example.com/s.png' });
      const before = await api.me(alice);
      t.clock.advance(5);
      const reply = await api.updateMe(alice, {
        nickname: 'Same',
        username,
        avatar: 'https://cdn.example.com/s.png',
        user_id: alice.userId,
      });
      expect(reply).toEqual({ user: before, event_id: null });

      // The default avatar URL sent back means "no avatar of one's own".
      const plain = await api.user();
      const plainBefore = await api.me(plain);
      expect(await api.updateMe(plain, { avatar: DEFAULT_AVATAR })).toEqual({ user: plainBefore, event_id: null });
    });

    it('removes the username with "" and selects the default avatar with ""', async () => {
      const alice = await api.user({ username: uniqueName(), avatar: 'https://cdn.example.com/x.png' });
      const reply = await api.updateMe(alice, { username: '', avatar: '' });
      expect(reply.user).toMatchObject({ username: '', avatar: DEFAULT_AVATAR });
      const rows: Array<{ username: string | null }> = await db.query('SELECT username FROM users WHERE id = ?', [
        alice.id,
      ]);
      expect(rows[0].username).toBeNull();
    });

    it('refuses a username taken by another user with 1004 and changes nothing', async () => {
      const taken = uniqueName();
      await api.user({ username: taken });
      const alice = await api.user({ nickname: 'Keep' });
      expectFail(await api.raw.updateMe(alice, { username: taken, nickname: 'Changed' }), 1004, 'username');
      expect(await api.me(alice)).toMatchObject({ username: '', nickname: 'Keep' });
      // Case-sensitive: a different case is another name.
      expect((await api.updateMe(alice, { username: taken.toUpperCase() })).user.username).toBe(taken.toUpperCase());
    });

    it('gives a contested username to exactly one of several concurrent updates', async () => {
      const users = await api.users(5);
      const name = uniqueName('race');
      const replies = await Promise.all(users.map((user) => api.raw.updateMe(user, { username: name })));
      const codes = replies.map((r) => r.body.code).sort();
      expect(codes).toEqual([0, 1004, 1004, 1004, 1004]);
      const rows: Array<{ n: number | string }> = await db.query('SELECT COUNT(*) AS n FROM users WHERE username = ?', [
        name,
      ]);
      expect(Number(rows[0].n)).toBe(1);
    });

    it('never changes the user ID', async () => {
      const alice = await api.user();
      expectFail(await api.raw.updateMe(alice, { user_id: randomUserId(), nickname: 'x' }), 1004, 'user_id');
      expectFail(await api.raw.updateMe(alice, { user_id: alice.userId }), 1004, 'body');
      expect((await api.updateMe(alice, { user_id: alice.userId, nickname: 'Renamed' })).user).toMatchObject({
        user_id: alice.userId,
        nickname: 'Renamed',
      });
    });

    it('refuses bad fields naming them, and an update without any field', async () => {
      const alice = await api.user();
      const cases: Array<[Body, string]> = [
        [{}, 'body'],
        [{ nickname: null, username: null }, 'body'],
        [{ nickname: '' }, 'nickname'],
        [{ nickname: ' padded' }, 'nickname'],
        [{ nickname: 'n'.repeat(81) }, 'nickname'],
        [{ nickname: 'a\u0007b' }, 'nickname'],
        [{ nickname: 5 }, 'nickname'],
        [{ username: 'u'.repeat(65) }, 'username'],
        [{ username: 'with\ttab' }, 'username'],
        [{ username: ['a'] }, 'username'],
        [{ avatar: 'ftp://example.com/a.png' }, 'avatar'],
        [{ avatar: `https://e.com/${'a'.repeat(1024)}` }, 'avatar'],
        [{ signature: 's'.repeat(256) }, 'signature'],
        [{ signature: 'a\nb' }, 'signature'],
        [{ signature: true }, 'signature'],
        [{ user_id: 7, nickname: 'x' }, 'user_id'],
      ];
      for (const [body, field] of cases) expectFail(await api.raw.updateMe(alice, body), 1004, field);
      expectFail(await api.raw.updateMe(alice, [{ nickname: 'x' }]), 1004, 'body');
      expect((await api.updateMe(alice, { nickname: '😀'.repeat(80), signature: 's'.repeat(255) })).user.nickname).toBe(
        '😀'.repeat(80),
      );
    });
  });

  describe('GET /app/sdk/users/profile', () => {
    it("returns another user's public profile, and one's own", async () => {
      const [alice, bob] = [await api.user(), await api.user({ nickname: 'Bob', signature: 'bob here' })];
      const bobsView = await api.me(bob);
      expect(expectOk<UserReply>(await api.raw.profile(alice, { user_id: bob.userId }))).toEqual({ user: bobsView });
      expect(expectOk<UserReply>(await api.raw.profile(bob, { user_id: bob.userId }))).toEqual({ user: bobsView });
    });

    it('answers 1204 for an unknown or disabled user, or one who has blocked the caller', async () => {
      const [alice, bob, carol] = await api.users(3);
      expectFail(await api.raw.profile(alice, { user_id: randomUserId() }), 1204, 'user_id');

      await api.block(bob, alice);
      expectFail(await api.raw.profile(alice, { user_id: bob.userId }), 1204, 'user_id');
      // The blocker still sees the blocked user; others still see the blocker.
      expect(expectOk<UserReply>(await api.raw.profile(bob, { user_id: alice.userId })).user.user_id).toBe(
        alice.userId,
      );
      expect(expectOk<UserReply>(await api.raw.profile(carol, { user_id: bob.userId })).user.user_id).toBe(bob.userId);
      await api.unblock(bob, alice);
      expect(expectOk<UserReply>(await api.raw.profile(alice, { user_id: bob.userId })).user.user_id).toBe(bob.userId);

      expectOk(await api.raw.userStatus(carol.userId, true));
      expectFail(await api.raw.profile(alice, { user_id: carol.userId }), 1204, 'user_id');
    });

    it('refuses a missing, repeated or malformed user_id (1004)', async () => {
      const alice = await api.user();
      expectFail(await api.raw.profile(alice, {}), 1004, 'user_id');
      expectFail(await api.raw.profile(alice, { user_id: '' }), 1004, 'user_id');
      expectFail(await api.raw.profile(alice, { user_id: ` ${alice.userId}` }), 1004, 'user_id');
      expectFail(await api.raw.profile(alice, { user_id: 'x'.repeat(65) }), 1004, 'user_id');
      expectFail(
        await t.http
          .get(`/app/sdk/users/profile?user_id=${alice.userId}&user_id=${alice.userId}`)
          .set(...bearer(alice.token)),
        1004,
        'user_id',
      );
    });
  });

  describe('GET /app/sdk/users/lookup', () => {
    it('finds a user by exact, case-sensitive username', async () => {
      const name = uniqueName('Look');
      const [alice, bob] = [await api.user(), await api.user({ username: name })];
      expect(expectOk<UserReply>(await api.raw.lookup(alice, { username: name }))).toEqual({ user: await api.me(bob) });
      expectFail(await api.raw.lookup(alice, { username: name.toLowerCase() }), 1204, 'username');
      expectFail(await api.raw.lookup(alice, { username: `${name}x` }), 1204, 'username');
      expectFail(await api.raw.lookup(alice, { username: name.slice(0, -1) }), 1204, 'username');
    });

    it('answers 1204 when the user is disabled or has blocked the caller', async () => {
      const [name, other] = [uniqueName(), uniqueName()];
      const [alice, bob, carol] = [
        await api.user(),
        await api.user({ username: name }),
        await api.user({ username: other }),
      ];
      await api.block(bob, alice);
      expectFail(await api.raw.lookup(alice, { username: name }), 1204, 'username');
      expectOk(await api.raw.userStatus(carol.userId, true));
      expectFail(await api.raw.lookup(alice, { username: other }), 1204, 'username');
    });

    it('refuses a missing, empty or malformed username (1004)', async () => {
      const alice = await api.user();
      expectFail(await api.raw.lookup(alice, {}), 1004, 'username');
      expectFail(await api.raw.lookup(alice, { username: '' }), 1004, 'username');
      expectFail(await api.raw.lookup(alice, { username: 'trailing ' }), 1004, 'username');
      expectFail(await api.raw.lookup(alice, { username: 'u'.repeat(65) }), 1004, 'username');
      expectFail(
        await t.http.get('/app/sdk/users/lookup?username=a&username=b').set(...bearer(alice.token)),
        1004,
        'username',
      );
    });
  });
});
