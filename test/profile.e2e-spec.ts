import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { IssuedUser, TestApp, bearer, hostAuth, issueUser, randomUserId, startTestApp } from './helpers/test-app';

type Body = Record<string, unknown>;

const DEFAULT_AVATAR = 'http://im.test/static/default-avatar.svg';
const uniqueName = (prefix = 'name'): string => `${prefix}_${randomBytes(6).toString('hex')}`;

function expectFailure(response: Response, code: number, field?: string): void {
  expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: { code, msg: expect.any(String), data: null } });
  if (field) expect(response.body.msg).toContain(field);
}

/** The data of a successful reply. */
function ok(response: Response) {
  expect({ status: response.status, code: response.body.code, msg: response.body.msg }).toEqual({ status: 200, code: 0, msg: 'ok' });
  expect(response.headers['cache-control']).toBe('no-store');
  return response.body.data;
}

describe('Profiles: own profile, updateCurrentUser, public profiles and username lookup', () => {
  let t: TestApp;
  let db: DataSource;

  beforeAll(async () => {
    t = await startTestApp();
    db = t.app.get(DataSource);
  });
  afterAll(() => t.close());

  const me = (user: IssuedUser) => t.http.get('/app/sdk/users/me').set(...bearer(user.token));
  const update = (user: IssuedUser, body: Body) => t.http.post('/app/sdk/users/me/update').set(...bearer(user.token)).send(body);
  const profile = (user: IssuedUser, query: Record<string, string>) => t.http.get('/app/sdk/users/profile').query(query).set(...bearer(user.token));
  const lookup = (user: IssuedUser, query: Record<string, string>) => t.http.get('/app/sdk/users/lookup').query(query).set(...bearer(user.token));
  const friends = (user: IssuedUser, path: string, body: Body) => t.http.post(`/app/sdk/friends${path}`).set(...bearer(user.token)).send(body);

  async function befriend(a: IssuedUser, b: IssuedUser): Promise<void> {
    const sent = ok(await friends(a, '/requests', { user_id: b.userId, request_id: uniqueName('fr') }));
    ok(await friends(b, '/requests/accept', { id: sent.request.id }));
  }

  async function recipientsOf(eventId: string): Promise<{ type: string; payload: Body; users: string[] }> {
    const rows: Array<{ type: string; payload: string; user_id: string | number }> = await db.query(
      'SELECT e.type, e.payload, r.user_id FROM outbox_events e JOIN outbox_recipients r ON r.event_row_id = e.id WHERE e.event_id = ?',
      [eventId],
    );
    expect(rows.length).toBeGreaterThan(0);
    return { type: rows[0].type, payload: JSON.parse(rows[0].payload) as Body, users: rows.map((row) => String(row.user_id)).sort() };
  }

  describe('GET /app/sdk/users/me', () => {
    it('returns the caller\'s user object', async () => {
      const username = uniqueName();
      const alice = await issueUser(t, { nickname: 'Alice', username, signature: 'hi' });
      expect(ok(await me(alice))).toEqual({
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
      expectFailure(await t.http.get('/app/sdk/users/me'), 1101);
      expectFailure(await t.http.get('/app/sdk/users/me').set(...hostAuth()), 1102);
      expectFailure(await t.http.post('/app/sdk/users/me/update').send({ nickname: 'x' }), 1101);
      expectFailure(await t.http.get('/app/sdk/users/profile').query({ user_id: 'x' }), 1101);
      expectFailure(await t.http.get('/app/sdk/users/lookup').query({ username: 'x' }), 1101);
    });
  });

  describe('POST /app/sdk/users/me/update', () => {
    it('changes the sent fields, moves profile_updated_at and tells the user and their friends', async () => {
      const [alice, bob, carol, stranger] = [await issueUser(t), await issueUser(t), await issueUser(t), await issueUser(t)];
      await befriend(alice, bob);
      await befriend(carol, alice);
      const before = ok(await me(alice)).user;
      t.clock.advance(5);
      const username = uniqueName('alice');
      const reply = ok(await update(alice, { nickname: 'Alice 2', username, avatar: 'https://cdn.example.com/a.png', signature: 'new sig' }));
      expect(reply).toEqual({
        user: { ...before, nickname: 'Alice 2', username, avatar: 'https://cdn.example.com/a.png', signature: 'new sig', profile_updated_at: expect.any(Number) },
        event_id: expect.any(String),
      });
      expect(reply.user.profile_updated_at).toBeGreaterThan(before.profile_updated_at);
      expect(ok(await me(alice)).user).toEqual(reply.user);

      const event = await recipientsOf(reply.event_id);
      expect(event.type).toBe('user.profile_updated');
      expect(event.payload).toEqual({ user: reply.user });
      expect(event.users).toEqual([alice.id, bob.id, carol.id].sort());
      expect(event.users).not.toContain(stranger.id);

      // Absent and null keep values; only what is sent changes.
      const partial = ok(await update(alice, { signature: '', nickname: null }));
      expect(partial.user).toEqual({ ...reply.user, signature: '', profile_updated_at: expect.any(Number) });
    });

    it('changes nothing and writes no event when the values are already stored', async () => {
      const username = uniqueName();
      const alice = await issueUser(t, { nickname: 'Same', username, avatar: 'https://cdn.example.com/s.png' });
      const before = ok(await me(alice)).user;
      t.clock.advance(5);
      const reply = ok(await update(alice, { nickname: 'Same', username, avatar: 'https://cdn.example.com/s.png', user_id: alice.userId }));
      expect(reply).toEqual({ user: before, event_id: null });

      // The default avatar URL sent back means "no avatar of one's own".
      const plain = await issueUser(t);
      const plainBefore = ok(await me(plain)).user;
      expect(ok(await update(plain, { avatar: DEFAULT_AVATAR }))).toEqual({ user: plainBefore, event_id: null });
    });

    it('removes the username with "" and selects the default avatar with ""', async () => {
      const alice = await issueUser(t, { username: uniqueName(), avatar: 'https://cdn.example.com/x.png' });
      const reply = ok(await update(alice, { username: '', avatar: '' }));
      expect(reply.user).toMatchObject({ username: '', avatar: DEFAULT_AVATAR });
      const rows: Array<{ username: string | null }> = await db.query('SELECT username FROM users WHERE id = ?', [alice.id]);
      expect(rows[0].username).toBeNull();
    });

    it('refuses a username taken by another user with 1004 and changes nothing', async () => {
      const taken = uniqueName();
      await issueUser(t, { username: taken });
      const alice = await issueUser(t, { nickname: 'Keep' });
      expectFailure(await update(alice, { username: taken, nickname: 'Changed' }), 1004, 'username');
      expect(ok(await me(alice)).user).toMatchObject({ username: '', nickname: 'Keep' });
      // Case-sensitive: a different case is another name.
      expect(ok(await update(alice, { username: taken.toUpperCase() })).user.username).toBe(taken.toUpperCase());
    });

    it('gives a contested username to exactly one of several concurrent updates', async () => {
      const users = await Promise.all(Array.from({ length: 5 }, () => issueUser(t)));
      const name = uniqueName('race');
      const replies = await Promise.all(users.map((user) => update(user, { username: name })));
      const codes = replies.map((r) => r.body.code).sort();
      expect(codes).toEqual([0, 1004, 1004, 1004, 1004]);
      const rows: Array<{ n: number | string }> = await db.query('SELECT COUNT(*) AS n FROM users WHERE username = ?', [name]);
      expect(Number(rows[0].n)).toBe(1);
    });

    it('never changes the user ID', async () => {
      const alice = await issueUser(t);
      expectFailure(await update(alice, { user_id: randomUserId(), nickname: 'x' }), 1004, 'user_id');
      expectFailure(await update(alice, { user_id: alice.userId }), 1004, 'body');
      expect(ok(await update(alice, { user_id: alice.userId, nickname: 'Renamed' })).user).toMatchObject({ user_id: alice.userId, nickname: 'Renamed' });
    });

    it('refuses bad fields naming them, and an update without any field', async () => {
      const alice = await issueUser(t);
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
      for (const [body, field] of cases) expectFailure(await update(alice, body), 1004, field);
      expectFailure(await t.http.post('/app/sdk/users/me/update').set(...bearer(alice.token)).send([{ nickname: 'x' }]), 1004, 'body');
      expect(ok(await update(alice, { nickname: '😀'.repeat(80), signature: 's'.repeat(255) })).user.nickname).toBe('😀'.repeat(80));
    });
  });

  describe('GET /app/sdk/users/profile', () => {
    it('returns another user\'s public profile, and one\'s own', async () => {
      const [alice, bob] = [await issueUser(t), await issueUser(t, { nickname: 'Bob', signature: 'bob here' })];
      const bobsView = ok(await me(bob)).user;
      expect(ok(await profile(alice, { user_id: bob.userId }))).toEqual({ user: bobsView });
      expect(ok(await profile(bob, { user_id: bob.userId }))).toEqual({ user: bobsView });
    });

    it('answers 1204 for an unknown or disabled user, or one who has blocked the caller', async () => {
      const [alice, bob, carol] = [await issueUser(t), await issueUser(t), await issueUser(t)];
      expectFailure(await profile(alice, { user_id: randomUserId() }), 1204, 'user_id');

      ok(await friends(bob, '/block', { user_id: alice.userId }));
      expectFailure(await profile(alice, { user_id: bob.userId }), 1204, 'user_id');
      // The blocker still sees the blocked user; others still see the blocker.
      expect(ok(await profile(bob, { user_id: alice.userId })).user.user_id).toBe(alice.userId);
      expect(ok(await profile(carol, { user_id: bob.userId })).user.user_id).toBe(bob.userId);
      ok(await friends(bob, '/unblock', { user_id: alice.userId }));
      expect(ok(await profile(alice, { user_id: bob.userId })).user.user_id).toBe(bob.userId);

      ok(await t.http.post('/app/sdk/users/status').set(...hostAuth()).send({ user_id: carol.userId, disabled: true }));
      expectFailure(await profile(alice, { user_id: carol.userId }), 1204, 'user_id');
    });

    it('refuses a missing, repeated or malformed user_id (1004)', async () => {
      const alice = await issueUser(t);
      expectFailure(await profile(alice, {}), 1004, 'user_id');
      expectFailure(await profile(alice, { user_id: '' }), 1004, 'user_id');
      expectFailure(await profile(alice, { user_id: ` ${alice.userId}` }), 1004, 'user_id');
      expectFailure(await profile(alice, { user_id: 'x'.repeat(65) }), 1004, 'user_id');
      expectFailure(await t.http.get(`/app/sdk/users/profile?user_id=${alice.userId}&user_id=${alice.userId}`).set(...bearer(alice.token)), 1004, 'user_id');
    });
  });

  describe('GET /app/sdk/users/lookup', () => {
    it('finds a user by exact, case-sensitive username', async () => {
      const name = uniqueName('Look');
      const [alice, bob] = [await issueUser(t), await issueUser(t, { username: name })];
      expect(ok(await lookup(alice, { username: name }))).toEqual({ user: ok(await me(bob)).user });
      expectFailure(await lookup(alice, { username: name.toLowerCase() }), 1204, 'username');
      expectFailure(await lookup(alice, { username: `${name}x` }), 1204, 'username');
      expectFailure(await lookup(alice, { username: name.slice(0, -1) }), 1204, 'username');
    });

    it('answers 1204 when the user is disabled or has blocked the caller', async () => {
      const [name, other] = [uniqueName(), uniqueName()];
      const [alice, bob, carol] = [await issueUser(t), await issueUser(t, { username: name }), await issueUser(t, { username: other })];
      ok(await friends(bob, '/block', { user_id: alice.userId }));
      expectFailure(await lookup(alice, { username: name }), 1204, 'username');
      ok(await t.http.post('/app/sdk/users/status').set(...hostAuth()).send({ user_id: carol.userId, disabled: true }));
      expectFailure(await lookup(alice, { username: other }), 1204, 'username');
    });

    it('refuses a missing, empty or malformed username (1004)', async () => {
      const alice = await issueUser(t);
      expectFailure(await lookup(alice, {}), 1004, 'username');
      expectFailure(await lookup(alice, { username: '' }), 1004, 'username');
      expectFailure(await lookup(alice, { username: 'trailing ' }), 1004, 'username');
      expectFailure(await lookup(alice, { username: 'u'.repeat(65) }), 1004, 'username');
      expectFailure(await t.http.get('/app/sdk/users/lookup?username=a&username=b').set(...bearer(alice.token)), 1004, 'username');
    });
  });
});
