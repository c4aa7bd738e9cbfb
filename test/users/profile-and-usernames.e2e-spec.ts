// Black-box tests of profiles (my profile, updateCurrentUser, public profiles, username lookup)
// and media (upload, sniffing, limits announced in sync, access-checked download, image/file
// messages), written from the spec (2.1–2.3, 4, 4.6, 7, 8), issue 3 and docs/api.md. Everything
// goes through HTTP: friendships and groups are made through their own endpoints.
import { randomBytes } from 'node:crypto';
import { TestApp, bearer, randomUserId, startTestApp } from '../helpers/test-app';
import { ApiClient, Body, UserObj as User, friendCid } from '../helpers/api-client';
import { expectFail, expectOk } from '../helpers/assertions';

const DEFAULT_AVATAR = 'http://im.test/static/default-avatar.svg';
const uname = (prefix = 'n'): string => `${prefix}_${randomBytes(6).toString('hex')}`;

const MAX_IMAGE = 3000;
const MAX_FILE = 6000;

describe('Profiles and media (black box)', () => {
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestApp({ MEDIA_MAX_IMAGE_BYTES: String(MAX_IMAGE), MEDIA_MAX_FILE_BYTES: String(MAX_FILE) });
    api = new ApiClient(t);
  });
  afterAll(() => t.close());

  // =====================================================================================
  describe('GET /app/sdk/users/me and POST /app/sdk/users/me/update', () => {
    it("returns the caller's user object with every documented field", async () => {
      const name = uname('me');
      const u = await api.user({ nickname: 'Me Myself', username: name, signature: 'sig' });
      expect(await api.me(u)).toEqual({
        id: u.id,
        user_id: u.userId,
        username: name,
        nickname: 'Me Myself',
        avatar: DEFAULT_AVATAR,
        signature: 'sig',
        profile_updated_at: expect.any(Number),
      });
    });

    it('updates each field alone, keeps the others, and moves profile_updated_at forward every time', async () => {
      const u = await api.user({ nickname: 'Start' });
      let prev = await api.me(u);
      const steps: Body[] = [
        { nickname: 'Second' },
        { signature: 'hello there' },
        { avatar: 'https://cdn.example.com/a.png' },
        { username: uname('st') },
        { avatar: '' },
        { username: '' },
        { signature: '' },
      ];
      for (const step of steps) {
        t.clock.advance(3);
        const reply = expectOk<{ user: User; event_id: string | null }>(await api.raw.updateMe(u, step));
        const expected: User = {
          ...prev,
          ...(step as Partial<User>),
          profile_updated_at: reply.user.profile_updated_at,
        };
        if (step.avatar === '') expected.avatar = DEFAULT_AVATAR;
        expect({ step, user: reply.user }).toEqual({ step, user: expected });
        expect({ step, bumped: reply.user.profile_updated_at > prev.profile_updated_at }).toEqual({
          step,
          bumped: true,
        });
        expect(typeof reply.event_id).toBe('string');
        expect(await api.me(u)).toEqual(reply.user);
        prev = reply.user;
      }
    });

    it('bumps profile_updated_at for each real change even when the clock stands still', async () => {
      const u = await api.user();
      const before = await api.me(u);
      const frozen = t.clock.now() + 10;
      t.clock.set(frozen);
      try {
        const first = expectOk<{ user: User }>(await api.raw.updateMe(u, { nickname: 'Frozen one' })).user;
        const second = expectOk<{ user: User }>(await api.raw.updateMe(u, { nickname: 'Frozen two' })).user;
        expect(first.profile_updated_at).toBeGreaterThan(before.profile_updated_at);
        expect({
          second: second.profile_updated_at,
          first: first.profile_updated_at,
          increased: second.profile_updated_at > first.profile_updated_at,
        }).toMatchObject({ increased: true });
      } finally {
        t.clock.set(Date.now());
      }
    });

    it('an update that changes nothing keeps profile_updated_at and answers event_id null', async () => {
      const u = await api.user({ nickname: 'Same', signature: 'same sig' });
      const before = await api.me(u);
      t.clock.advance(5);
      const reply = expectOk<{ user: User; event_id: string | null }>(
        await api.raw.updateMe(u, { nickname: 'Same', signature: 'same sig', username: null, avatar: null }),
      );
      expect(reply).toEqual({ user: before, event_id: null });
      expect(await api.me(u)).toEqual(before);
    });

    it('never changes the user ID: another user_id is 1004 naming user_id and nothing else of the request is applied', async () => {
      const u = await api.user({ nickname: 'Keep me' });
      const before = await api.me(u);
      const other = randomUserId();
      expectFail(await api.raw.updateMe(u, { user_id: other, nickname: 'Hijack' }), 1004, 'user_id');
      const victim = await api.user();
      expectFail(await api.raw.updateMe(u, { user_id: victim.userId, nickname: 'Hijack' }), 1004, 'user_id');
      expect(await api.me(u)).toEqual(before);
      expect(expectOk<{ user: User }>(await api.raw.profile(victim, u.userId)).user).toEqual(before);
      // the host still knows the user under the same ID
      const again = expectOk<{ user: User }>(await api.raw.token({ user_id: u.userId, nickname: 'Keep me' }));
      expect(again.user.id).toBe(u.id);
      // sending one's own ID together with a change is fine
      expect(
        expectOk<{ user: User }>(await api.raw.updateMe(u, { user_id: u.userId, nickname: 'Renamed' })).user,
      ).toMatchObject({ id: u.id, user_id: u.userId, nickname: 'Renamed' });
      // an internal-ID field is not a way either
      const reply = await api.raw.updateMe(u, { id: '1', nickname: 'Renamed' });
      if (reply.body.code === 0) expect(reply.body.data.user.id).toBe(u.id);
      expect((await api.me(u)).id).toBe(u.id);
    });

    it('refuses values of the wrong JSON type (no implicit conversion) with 1004 naming the field, changing nothing', async () => {
      const u = await api.user({ nickname: 'Typed' });
      const before = await api.me(u);
      const cases: Array<[Body, string]> = [
        [{ nickname: 123 }, 'nickname'],
        [{ nickname: true }, 'nickname'],
        [{ nickname: ['x'] }, 'nickname'],
        [{ nickname: { v: 'x' } }, 'nickname'],
        [{ username: 12345 }, 'username'],
        [{ username: false }, 'username'],
        [{ signature: true }, 'signature'],
        [{ signature: 0 }, 'signature'],
        [{ avatar: 1 }, 'avatar'],
        [{ avatar: { url: 'https://e.com/a.png' } }, 'avatar'],
        [{ user_id: 42, nickname: 'x' }, 'user_id'],
        [{ nickname: 'ok nick', signature: 5 }, 'signature'],
      ];
      for (const [body, field] of cases) expectFail(await api.raw.updateMe(u, body), 1004, field);
      expect(await api.me(u)).toEqual(before);
    });

    it('refuses invalid text with 1004 naming the field (lengths in code points, control characters, URL scheme, lone surrogates)', async () => {
      const u = await api.user({ nickname: 'Valid' });
      const before = await api.me(u);
      const cases: Array<[Body, string]> = [
        [{ nickname: '' }, 'nickname'],
        [{ nickname: 'x'.repeat(81) }, 'nickname'],
        [{ nickname: '😀'.repeat(81) }, 'nickname'],
        [{ nickname: 'tab\there' }, 'nickname'],
        [{ username: 'u'.repeat(65) }, 'username'],
        [{ username: 'new\nline' }, 'username'],
        [{ signature: 's'.repeat(256) }, 'signature'],
        [{ signature: 'bell\u0007' }, 'signature'],
        [{ avatar: 'javascript:alert(1)' }, 'avatar'],
        [{ avatar: `https://e.com/${'a'.repeat(1011)}` }, 'avatar'], // 1025 characters
      ];
      for (const [body, field] of cases) expectFail(await api.raw.updateMe(u, body), 1004, field);
      const lone = await t.http
        .post('/app/sdk/users/me/update')
        .set(...bearer(u.token))
        .set('Content-Type', 'application/json')
        .send('{"nickname":"a\\ud800b"}');
      expectFail(lone, 1004, 'nickname');
      expect(await api.me(u)).toEqual(before);
      // the limits themselves are accepted, counted in code points
      const edge = expectOk<{ user: User }>(
        await api.raw.updateMe(u, {
          nickname: '😀'.repeat(80),
          signature: '字'.repeat(255),
          username: `${'ü'.repeat(50)}${randomBytes(7).toString('hex')}`,
        }),
      ).user;
      expect(edge.nickname).toBe('😀'.repeat(80));
      expect(edge.signature).toBe('字'.repeat(255));
      expect(expectOk<{ user: User }>(await api.raw.lookup(u, edge.username)).user.user_id).toBe(u.userId);
    });

    it('refuses an update without any field, and a non-object body, with 1004', async () => {
      const u = await api.user();
      const before = await api.me(u);
      expectFail(await api.raw.updateMe(u, {}), 1004);
      expectFail(await api.raw.updateMe(u, { unknown_field: 'x' }), 1004);
      expectFail(await api.raw.updateMe(u, [{ nickname: 'x' }]), 1004);
      expect(await api.me(u)).toEqual(before);
    });

    it('a friend sees the new profile through /users/profile and the one-to-one item of sync', async () => {
      const a = await api.user({ nickname: 'Before Name' });
      const b = await api.user();
      await api.befriend(a, b);
      const itemBefore = expectOk<{
        conversations: { items: Array<{ conversation_id: string; title: string; avatar: string }> };
      }>(await api.raw.sync(b)).conversations.items.find((i) => i.conversation_id === friendCid(a));
      expect(itemBefore).toMatchObject({ title: 'Before Name', avatar: DEFAULT_AVATAR });
      t.clock.advance(2);
      const updated = expectOk<{ user: User }>(
        await api.raw.updateMe(a, {
          nickname: 'After Name',
          avatar: 'https://cdn.example.com/after.png',
          signature: 'new',
        }),
      ).user;
      expect(expectOk<{ user: User }>(await api.raw.profile(b, a.userId)).user).toEqual(updated);
      const itemAfter = expectOk<{
        conversations: { items: Array<{ conversation_id: string; title: string; avatar: string }> };
      }>(await api.raw.sync(b)).conversations.items.find((i) => i.conversation_id === friendCid(a));
      expect(itemAfter).toMatchObject({ title: 'After Name', avatar: 'https://cdn.example.com/after.png' });
    });
  });

  // =====================================================================================
  describe('usernames: uniqueness, races and exact lookup', () => {
    it('a taken username is 1004 naming username and nothing of that request changes; once released, another user may take it', async () => {
      const name = uname('take');
      const a = await api.user({ username: name });
      const b = await api.user({ nickname: 'Bee', signature: 'b sig' });
      const bBefore = await api.me(b);
      expectFail(
        await api.raw.updateMe(b, { username: name, nickname: 'Changed', signature: 'changed' }),
        1004,
        'username',
      );
      expect(await api.me(b)).toEqual(bBefore);
      expect(expectOk<{ user: User }>(await api.raw.lookup(b, name)).user.user_id).toBe(a.userId);
      // the owner re-sending their own name is a no-op, not a conflict
      expect(expectOk<{ event_id: string | null }>(await api.raw.updateMe(a, { username: name })).event_id).toBeNull();
      // A releases it, B takes it
      expectOk(await api.raw.updateMe(a, { username: '' }));
      expectFail(await api.raw.lookup(b, name), 1204, 'username');
      expect(expectOk<{ user: User }>(await api.raw.updateMe(b, { username: name })).user.username).toBe(name);
      expect(expectOk<{ user: User }>(await api.raw.lookup(a, name)).user.user_id).toBe(b.userId);
      // and A can no longer take it back
      expectFail(await api.raw.updateMe(a, { username: name }), 1004, 'username');
    });

    it('a username taken through the host token endpoint is refused on update and vice versa', async () => {
      const name = uname('host');
      const a = await api.user();
      expectOk(await api.raw.updateMe(a, { username: name }));
      const bId = randomUserId();
      const viaHost = await api.raw.token({ user_id: bId, nickname: 'B', username: name });
      expectFail(viaHost, 1004, 'username');
      expect(expectOk<{ user: User }>(await api.raw.lookup(a, name)).user.user_id).toBe(a.userId);
    });

    it('two users claiming one username at once: exactly one wins, lookup names the winner, the loser is unchanged (10 rounds)', async () => {
      for (let round = 0; round < 10; round += 1) {
        const name = uname(`race${round}`);
        const x = await api.user({ nickname: 'X racer' });
        const y = await api.user({ nickname: 'Y racer' });
        const [rx, ry] = await Promise.all([
          api.raw.updateMe(x, { username: name, signature: 'x won' }),
          api.raw.updateMe(y, { username: name, signature: 'y won' }),
        ]);
        const codes = [rx.body.code, ry.body.code].sort();
        expect({ round, codes }).toEqual({ round, codes: [0, 1004] });
        const winner = rx.body.code === 0 ? x : y;
        const loser = winner === x ? y : x;
        expect(expectOk<{ user: User }>(await api.raw.lookup(loser, name)).user.user_id).toBe(winner.userId);
        expect(await api.me(loser)).toMatchObject({ username: '', signature: '' });
      }
    });

    it('a username claimed at once through updateCurrentUser and the host token endpoint goes to exactly one user (10 rounds)', async () => {
      for (let round = 0; round < 10; round += 1) {
        const name = uname(`mix${round}`);
        const x = await api.user();
        const yId = randomUserId();
        const [rx, ry] = await Promise.all([
          api.raw.updateMe(x, { username: name }),
          api.raw.token({ user_id: yId, nickname: 'Y', username: name }),
        ]);
        const codes = [rx.body.code, ry.body.code].sort();
        expect({ round, codes, status: [rx.status, ry.status] }).toEqual({
          round,
          codes: [0, 1004],
          status: [200, 200],
        });
        const found = expectOk<{ user: User }>(await api.raw.lookup(x, name)).user.user_id;
        expect(found).toBe(rx.body.code === 0 ? x.userId : yId);
      }
    });

    it('lookup is exact and case-sensitive; LIKE wildcards are literal', async () => {
      const base = `ab${randomBytes(5).toString('hex')}`;
      const u = await api.user({ username: `${base}Xcd` });
      const asker = await api.user();
      expect(expectOk<{ user: User }>(await api.raw.lookup(asker, `${base}Xcd`)).user).toEqual(await api.me(u));
      for (const probe of [
        `${base}_cd`,
        `${base}%`,
        `${base}xcd`,
        `${base}XCD`,
        `${base}Xc`,
        `%`,
        `_${base.slice(1)}Xcd`,
      ]) {
        expectFail(await api.raw.lookup(asker, probe), 1204, 'username');
      }
    });

    it('every username an update accepts is found again by lookup (whitespace, Unicode, 64 code points)', async () => {
      const asker = await api.user();
      const tail = randomBytes(4).toString('hex');
      const candidates = [
        `in side ${tail}`,
        ` lead${tail}`,
        `trail${tail} `,
        `Ünïcödé-${tail}`,
        `${'😀'.repeat(56)}${tail}`,
        `名字${tail}`,
      ];
      for (const candidate of candidates) {
        const u = await api.user();
        const reply = await api.raw.updateMe(u, { username: candidate });
        if (reply.body.code !== 0) {
          expectFail(reply, 1004, 'username');
          continue;
        }
        expect(reply.body.data.user.username).toBe(candidate);
        const found = await api.raw.lookup(asker, candidate);
        expect({ candidate, code: found.body.code, user: found.body.data?.user?.user_id }).toEqual({
          candidate,
          code: 0,
          user: u.userId,
        });
      }
    });

    it('a username that differs only by trailing space or case is another username on both drivers', async () => {
      const base = uname('pad');
      const a = await api.user({ username: base });
      const b = await api.user();
      const upper = await api.raw.updateMe(b, { username: base.toUpperCase() });
      expect(upper.body.code).toBe(0);
      const c = await api.user();
      const padded = await api.raw.updateMe(c, { username: `${base} ` });
      // Either refused as malformed (1004 naming username) or accepted as a distinct name; never a fault, never "taken".
      expect(padded.status).toBe(200);
      if (padded.body.code !== 0) {
        expectFail(padded, 1004, 'username');
        expect(padded.body.msg).not.toMatch(/taken/);
      }
      expect(expectOk<{ user: User }>(await api.raw.lookup(c, base)).user.user_id).toBe(a.userId);
    });
  });

  // =====================================================================================
  describe('GET /app/sdk/users/profile and /users/lookup access', () => {
    it("gives any existing user's public profile (stranger, friend, myself) with the same fields as /me", async () => {
      const a = await api.user({
        nickname: 'Pub',
        username: uname('pub'),
        signature: 'public sig',
        avatar: 'https://cdn.example.com/p.png',
      });
      const stranger = await api.user();
      const full = await api.me(a);
      expect(expectOk<{ user: User }>(await api.raw.profile(stranger, a.userId)).user).toEqual(full);
      expect(expectOk<{ user: User }>(await api.raw.profile(a, a.userId)).user).toEqual(full);
      expect(expectOk<{ user: User }>(await api.raw.lookup(stranger, full.username)).user).toEqual(full);
    });

    it('answers 1204 (naming the parameter) for unknown, disabled and blocking users, and again after unblock/enable works', async () => {
      const name = uname('blk');
      const a = await api.user();
      const b = await api.user({ username: name });
      expectFail(await api.raw.profile(a, randomUserId()), 1204, 'user_id');
      expectOk(await api.raw.block(b, a.userId));
      expectFail(await api.raw.profile(a, b.userId), 1204, 'user_id');
      expectFail(await api.raw.lookup(a, name), 1204, 'username');
      // the unknown and the blocked answers are indistinguishable
      const unknown = await api.raw.profile(a, randomUserId());
      const blocked = await api.raw.profile(a, b.userId);
      expect(blocked.body.msg).toBe(unknown.body.msg);
      // the blocker still sees the blocked user
      expect(expectOk<{ user: User }>(await api.raw.profile(b, a.userId)).user.user_id).toBe(a.userId);
      expectOk(await api.raw.unblock(b, a.userId));
      expect(expectOk<{ user: User }>(await api.raw.profile(a, b.userId)).user.user_id).toBe(b.userId);
      expectOk(await api.raw.userStatus(b.userId, true));
      expectFail(await api.raw.profile(a, b.userId), 1204, 'user_id');
      expectFail(await api.raw.lookup(a, name), 1204, 'username');
      expectOk(await api.raw.userStatus(b.userId, false));
      expect(expectOk<{ user: User }>(await api.raw.lookup(a, name)).user.user_id).toBe(b.userId);
    });

    it('refuses malformed parameters with 1004 naming them', async () => {
      const a = await api.user();
      expectFail(await t.http.get('/app/sdk/users/profile').set(...bearer(a.token)), 1004, 'user_id');
      expectFail(await api.raw.profile(a, ''), 1004, 'user_id');
      expectFail(await api.raw.profile(a, 'x\u0001y'), 1004, 'user_id');
      expectFail(await t.http.get('/app/sdk/users/lookup').set(...bearer(a.token)), 1004, 'username');
      expectFail(await api.raw.lookup(a, 'u'.repeat(65)), 1004, 'username');
      expectFail(await t.http.get('/app/sdk/users/lookup?username[a]=b').set(...bearer(a.token)), 1004, 'username');
    });
  });
});
