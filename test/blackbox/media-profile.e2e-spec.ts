// Black-box tests of profiles (my profile, updateCurrentUser, public profiles, username lookup)
// and media (upload, sniffing, limits announced in sync, access-checked download, image/file
// messages), written from the spec (2.1–2.3, 4, 4.6, 7, 8), issue 3 and the README. Everything
// goes through HTTP: friendships and groups are made through their own endpoints.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Response } from 'supertest';
import { IssuedUser, TestApp, bearer, hostAuth, issueUser, randomGroupId, randomUserId, startTestApp } from '../helpers/test-app';

type Body = Record<string, unknown>;

interface User {
  id: string;
  user_id: string;
  username: string;
  nickname: string;
  avatar: string;
  signature: string;
  profile_updated_at: number;
}

interface Media {
  media_id: string;
  kind: string;
  mime_type: string;
  size: number;
  file_name: string;
  url: string;
  created_at: number;
}

const DEFAULT_AVATAR = 'http://im.test/static/default-avatar.svg';
const uname = (prefix = 'n'): string => `${prefix}_${randomBytes(6).toString('hex')}`;
const cmid = (): string => `c-${randomBytes(8).toString('hex')}`;
const friendCid = (peer: IssuedUser): string => `friend_${Buffer.from(peer.userId).toString('base64url')}`;

function ok<T = Body>(response: Response): T {
  expect({ status: response.status, code: response.body?.code, body: response.body }).toMatchObject({ status: 200, code: 0 });
  expect(response.body.msg).toBe('ok');
  return response.body.data as T;
}

/** A business failure: HTTP 200, the code, data null; `field` must be named in msg. */
function fail(response: Response | { status: number; body: unknown }, code: number | number[], field?: string): void {
  const body = (response.body ?? {}) as Body;
  const codes = Array.isArray(code) ? code : [code];
  const data = body.data === null ? null : `non-null data: ${JSON.stringify(body.data)?.slice(0, 300)}`;
  expect({ status: response.status, codeOk: codes.includes(body.code as number) ? 'yes' : body.code, msg: body.msg, data }).toEqual({
    status: 200,
    codeOk: 'yes',
    msg: expect.any(String),
    data: null,
  });
  if (field) expect({ field, msg: body.msg }).toEqual({ field, msg: expect.stringContaining(field) });
}

// ---------- file fixtures ----------
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const pngOfSize = (size: number): Buffer => Buffer.concat([PNG, Buffer.alloc(size - PNG.length)]);
const HTML = Buffer.from('<!DOCTYPE html><html><body><script>fetch("/steal?c="+document.cookie)</script></body></html>\n');
const SVG = Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(document.domain)</script></svg>\n');
const SVG_NO_DECL = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><circle r="4"/><script>alert(1)</script></svg>');
const BOM_HTML = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<html><script>alert(1)</script></html>')]);
const BM_TEXT = Buffer.from('BMW and Mercedes: a comparison of two cars, written as plain text.\n');

function binaryParser(res: Response, callback: (error: Error | null, body: Buffer) => void): void {
  const stream = res as unknown as IncomingMessage;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => callback(null, Buffer.concat(chunks)));
}

interface Download {
  status: number;
  headers: Record<string, string>;
  bytes: Buffer;
  body: unknown;
}

const MAX_IMAGE = 3000;
const MAX_FILE = 6000;

describe('Profiles and media (black box)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ MEDIA_MAX_IMAGE_BYTES: String(MAX_IMAGE), MEDIA_MAX_FILE_BYTES: String(MAX_FILE) });
  });
  afterAll(() => t.close());

  // ---------- HTTP wrappers ----------
  const me = (u: IssuedUser) => t.http.get('/app/sdk/users/me').set(...bearer(u.token));
  const meUser = async (u: IssuedUser): Promise<User> => ok<{ user: User }>(await me(u)).user;
  const update = (u: IssuedUser, body: unknown) => t.http.post('/app/sdk/users/me/update').set(...bearer(u.token)).send(body as Body);
  const profile = (u: IssuedUser, userId: string) => t.http.get('/app/sdk/users/profile').query({ user_id: userId }).set(...bearer(u.token));
  const lookup = (u: IssuedUser, username: string) => t.http.get('/app/sdk/users/lookup').query({ username }).set(...bearer(u.token));
  const syncRaw = (u: IssuedUser, body: Body = {}) => t.http.post('/app/sdk/sync').set(...bearer(u.token)).send(body);
  const sendRaw = (u: IssuedUser, body: Body) => t.http.post('/app/sdk/messages/send').set(...bearer(u.token)).send(body);
  const windowOf = async (u: IssuedUser, cid: string) =>
    ok<{ messages: Array<Body & { content: Body | null; conversation_seq: string; mid: string }>; last_seq: string }>(
      await t.http.get('/app/sdk/messages').set(...bearer(u.token)).query({ conversation_id: cid, known_last_seq: '0', known_updated_at: '0', known_deletion_revision: '0' }),
    );

  async function befriend(a: IssuedUser, b: IssuedUser): Promise<void> {
    const sent = ok<{ request: { id: string } }>(await t.http.post('/app/sdk/friends/requests').set(...bearer(a.token)).send({ user_id: b.userId, request_id: uname('fr') }));
    ok(await t.http.post('/app/sdk/friends/requests/accept').set(...bearer(b.token)).send({ id: sent.request.id }));
  }
  async function createGroup(owner: IssuedUser, members: IssuedUser[]): Promise<string> {
    const groupId = randomGroupId();
    ok(await t.http.post('/app/sdk/groups/create').set(...bearer(owner.token)).send({ group_id: groupId, name: `G ${groupId}`, member_ids: members.map((m) => m.userId) }));
    return groupId;
  }
  const addMembers = async (owner: IssuedUser, groupId: string, users: IssuedUser[]) =>
    ok(await t.http.post('/app/sdk/groups/members/add').set(...bearer(owner.token)).send({ group_id: groupId, user_ids: users.map((u) => u.userId) }));
  const removeMembers = async (owner: IssuedUser, groupId: string, users: IssuedUser[]) =>
    ok(await t.http.post('/app/sdk/groups/members/remove').set(...bearer(owner.token)).send({ group_id: groupId, user_ids: users.map((u) => u.userId) }));

  const upload = (u: IssuedUser, data: Buffer, options: { filename?: string; contentType?: string; kind?: string; kindAfterFile?: boolean } = {}) => {
    const req = t.http.post('/app/sdk/media/upload').set(...bearer(u.token));
    if (options.kind !== undefined && !options.kindAfterFile) void req.field('kind', options.kind);
    void req.attach('file', data, { filename: options.filename ?? 'upload.bin', contentType: options.contentType ?? 'application/octet-stream' });
    if (options.kind !== undefined && options.kindAfterFile) void req.field('kind', options.kind);
    return req;
  };
  async function uploaded(u: IssuedUser, data: Buffer, options: { filename?: string; contentType?: string; kind?: string } = {}): Promise<Media> {
    return ok<{ media: Media }>(await upload(u, data, options)).media;
  }
  async function download(u: IssuedUser, path: string): Promise<Download> {
    const response: Response = await t.http.get(path).set(...bearer(u.token)).buffer(true).parse(binaryParser);
    const bytes = response.body as Buffer;
    const json = String(response.headers['content-type'] ?? '').startsWith('application/json');
    return { status: response.status, headers: response.headers as Record<string, string>, bytes, body: json ? JSON.parse(bytes.toString('utf8')) : null };
  }
  const mediaPath = (id: string) => `/app/sdk/media/${id}`;
  function expectBytes(d: Download, bytes: Buffer): void {
    expect({ status: d.status, body: d.body, same: d.bytes.equals(bytes) }).toEqual({ status: 200, body: null, same: true });
  }

  // =====================================================================================
  describe('GET /app/sdk/users/me and POST /app/sdk/users/me/update', () => {
    it('returns the caller\'s user object with every documented field', async () => {
      const name = uname('me');
      const u = await issueUser(t, { nickname: 'Me Myself', username: name, signature: 'sig' });
      expect(await meUser(u)).toEqual({
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
      const u = await issueUser(t, { nickname: 'Start' });
      let prev = await meUser(u);
      const steps: Body[] = [{ nickname: 'Second' }, { signature: 'hello there' }, { avatar: 'https://cdn.example.com/a.png' }, { username: uname('st') }, { avatar: '' }, { username: '' }, { signature: '' }];
      for (const step of steps) {
        t.clock.advance(3);
        const reply = ok<{ user: User; event_id: string | null }>(await update(u, step));
        const expected: User = { ...prev, ...(step as Partial<User>), profile_updated_at: reply.user.profile_updated_at };
        if (step.avatar === '') expected.avatar = DEFAULT_AVATAR;
        expect({ step, user: reply.user }).toEqual({ step, user: expected });
        expect({ step, bumped: reply.user.profile_updated_at > prev.profile_updated_at }).toEqual({ step, bumped: true });
        expect(typeof reply.event_id).toBe('string');
        expect(await meUser(u)).toEqual(reply.user);
        prev = reply.user;
      }
    });

    it('bumps profile_updated_at for each real change even when the clock stands still', async () => {
      const u = await issueUser(t);
      const before = await meUser(u);
      const frozen = t.clock.now() + 10;
      t.clock.set(frozen);
      try {
        const first = ok<{ user: User }>(await update(u, { nickname: 'Frozen one' })).user;
        const second = ok<{ user: User }>(await update(u, { nickname: 'Frozen two' })).user;
        expect(first.profile_updated_at).toBeGreaterThan(before.profile_updated_at);
        expect({ second: second.profile_updated_at, first: first.profile_updated_at, increased: second.profile_updated_at > first.profile_updated_at }).toMatchObject({ increased: true });
      } finally {
        t.clock.set(Date.now());
      }
    });

    it('an update that changes nothing keeps profile_updated_at and answers event_id null', async () => {
      const u = await issueUser(t, { nickname: 'Same', signature: 'same sig' });
      const before = await meUser(u);
      t.clock.advance(5);
      const reply = ok<{ user: User; event_id: string | null }>(await update(u, { nickname: 'Same', signature: 'same sig', username: null, avatar: null }));
      expect(reply).toEqual({ user: before, event_id: null });
      expect(await meUser(u)).toEqual(before);
    });

    it('never changes the user ID: another user_id is 1004 naming user_id and nothing else of the request is applied', async () => {
      const u = await issueUser(t, { nickname: 'Keep me' });
      const before = await meUser(u);
      const other = randomUserId();
      fail(await update(u, { user_id: other, nickname: 'Hijack' }), 1004, 'user_id');
      const victim = await issueUser(t);
      fail(await update(u, { user_id: victim.userId, nickname: 'Hijack' }), 1004, 'user_id');
      expect(await meUser(u)).toEqual(before);
      expect(ok<{ user: User }>(await profile(victim, u.userId)).user).toEqual(before);
      // the host still knows the user under the same ID
      const again = ok<{ user: User }>(await t.http.post('/app/sdk/token').set(...hostAuth()).send({ user_id: u.userId, nickname: 'Keep me' }));
      expect(again.user.id).toBe(u.id);
      // sending one's own ID together with a change is fine
      expect(ok<{ user: User }>(await update(u, { user_id: u.userId, nickname: 'Renamed' })).user).toMatchObject({ id: u.id, user_id: u.userId, nickname: 'Renamed' });
      // an internal-ID field is not a way either
      const reply = await update(u, { id: '1', nickname: 'Renamed' });
      if (reply.body.code === 0) expect(reply.body.data.user.id).toBe(u.id);
      expect((await meUser(u)).id).toBe(u.id);
    });

    it('refuses values of the wrong JSON type (no implicit conversion) with 1004 naming the field, changing nothing', async () => {
      const u = await issueUser(t, { nickname: 'Typed' });
      const before = await meUser(u);
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
      for (const [body, field] of cases) fail(await update(u, body), 1004, field);
      expect(await meUser(u)).toEqual(before);
    });

    it('refuses invalid text with 1004 naming the field (lengths in code points, control characters, URL scheme, lone surrogates)', async () => {
      const u = await issueUser(t, { nickname: 'Valid' });
      const before = await meUser(u);
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
      for (const [body, field] of cases) fail(await update(u, body), 1004, field);
      const lone = await t.http.post('/app/sdk/users/me/update').set(...bearer(u.token)).set('Content-Type', 'application/json').send('{"nickname":"a\\ud800b"}');
      fail(lone, 1004, 'nickname');
      expect(await meUser(u)).toEqual(before);
      // the limits themselves are accepted, counted in code points
      const edge = ok<{ user: User }>(await update(u, { nickname: '😀'.repeat(80), signature: '字'.repeat(255), username: `${'ü'.repeat(50)}${randomBytes(7).toString('hex')}` })).user;
      expect(edge.nickname).toBe('😀'.repeat(80));
      expect(edge.signature).toBe('字'.repeat(255));
      expect(ok<{ user: User }>(await lookup(u, edge.username)).user.user_id).toBe(u.userId);
    });

    it('refuses an update without any field, and a non-object body, with 1004', async () => {
      const u = await issueUser(t);
      const before = await meUser(u);
      fail(await update(u, {}), 1004);
      fail(await update(u, { unknown_field: 'x' }), 1004);
      fail(await update(u, [{ nickname: 'x' }]), 1004);
      expect(await meUser(u)).toEqual(before);
    });

    it('a friend sees the new profile through /users/profile and the one-to-one item of sync', async () => {
      const a = await issueUser(t, { nickname: 'Before Name' });
      const b = await issueUser(t);
      await befriend(a, b);
      const itemBefore = ok<{ conversations: { items: Array<{ conversation_id: string; title: string; avatar: string }> } }>(await syncRaw(b)).conversations.items.find(
        (i) => i.conversation_id === friendCid(a),
      );
      expect(itemBefore).toMatchObject({ title: 'Before Name', avatar: DEFAULT_AVATAR });
      t.clock.advance(2);
      const updated = ok<{ user: User }>(await update(a, { nickname: 'After Name', avatar: 'https://cdn.example.com/after.png', signature: 'new' })).user;
      expect(ok<{ user: User }>(await profile(b, a.userId)).user).toEqual(updated);
      const itemAfter = ok<{ conversations: { items: Array<{ conversation_id: string; title: string; avatar: string }> } }>(await syncRaw(b)).conversations.items.find(
        (i) => i.conversation_id === friendCid(a),
      );
      expect(itemAfter).toMatchObject({ title: 'After Name', avatar: 'https://cdn.example.com/after.png' });
    });
  });

  // =====================================================================================
  describe('usernames: uniqueness, races and exact lookup', () => {
    it('a taken username is 1004 naming username and nothing of that request changes; once released, another user may take it', async () => {
      const name = uname('take');
      const a = await issueUser(t, { username: name });
      const b = await issueUser(t, { nickname: 'Bee', signature: 'b sig' });
      const bBefore = await meUser(b);
      fail(await update(b, { username: name, nickname: 'Changed', signature: 'changed' }), 1004, 'username');
      expect(await meUser(b)).toEqual(bBefore);
      expect(ok<{ user: User }>(await lookup(b, name)).user.user_id).toBe(a.userId);
      // the owner re-sending their own name is a no-op, not a conflict
      expect(ok<{ event_id: string | null }>(await update(a, { username: name })).event_id).toBeNull();
      // A releases it, B takes it
      ok(await update(a, { username: '' }));
      fail(await lookup(b, name), 1204, 'username');
      expect(ok<{ user: User }>(await update(b, { username: name })).user.username).toBe(name);
      expect(ok<{ user: User }>(await lookup(a, name)).user.user_id).toBe(b.userId);
      // and A can no longer take it back
      fail(await update(a, { username: name }), 1004, 'username');
    });

    it('a username taken through the host token endpoint is refused on update and vice versa', async () => {
      const name = uname('host');
      const a = await issueUser(t);
      ok(await update(a, { username: name }));
      const bId = randomUserId();
      const viaHost = await t.http.post('/app/sdk/token').set(...hostAuth()).send({ user_id: bId, nickname: 'B', username: name });
      fail(viaHost, 1004, 'username');
      expect(ok<{ user: User }>(await lookup(a, name)).user.user_id).toBe(a.userId);
    });

    it('two users claiming one username at once: exactly one wins, lookup names the winner, the loser is unchanged (10 rounds)', async () => {
      for (let round = 0; round < 10; round += 1) {
        const name = uname(`race${round}`);
        const x = await issueUser(t, { nickname: 'X racer' });
        const y = await issueUser(t, { nickname: 'Y racer' });
        const [rx, ry] = await Promise.all([update(x, { username: name, signature: 'x won' }), update(y, { username: name, signature: 'y won' })]);
        const codes = [rx.body.code, ry.body.code].sort();
        expect({ round, codes }).toEqual({ round, codes: [0, 1004] });
        const winner = rx.body.code === 0 ? x : y;
        const loser = winner === x ? y : x;
        expect(ok<{ user: User }>(await lookup(loser, name)).user.user_id).toBe(winner.userId);
        expect(await meUser(loser)).toMatchObject({ username: '', signature: '' });
      }
    });

    it('a username claimed at once through updateCurrentUser and the host token endpoint goes to exactly one user (10 rounds)', async () => {
      for (let round = 0; round < 10; round += 1) {
        const name = uname(`mix${round}`);
        const x = await issueUser(t);
        const yId = randomUserId();
        const [rx, ry] = await Promise.all([
          update(x, { username: name }),
          t.http.post('/app/sdk/token').set(...hostAuth()).send({ user_id: yId, nickname: 'Y', username: name }),
        ]);
        const codes = [rx.body.code, ry.body.code].sort();
        expect({ round, codes, status: [rx.status, ry.status] }).toEqual({ round, codes: [0, 1004], status: [200, 200] });
        const found = ok<{ user: User }>(await lookup(x, name)).user.user_id;
        expect(found).toBe(rx.body.code === 0 ? x.userId : yId);
      }
    });

    it('lookup is exact and case-sensitive; LIKE wildcards are literal', async () => {
      const base = `ab${randomBytes(5).toString('hex')}`;
      const u = await issueUser(t, { username: `${base}Xcd` });
      const asker = await issueUser(t);
      expect(ok<{ user: User }>(await lookup(asker, `${base}Xcd`)).user).toEqual(await meUser(u));
      for (const probe of [`${base}_cd`, `${base}%`, `${base}xcd`, `${base}XCD`, `${base}Xc`, `%`, `_${base.slice(1)}Xcd`]) {
        fail(await lookup(asker, probe), 1204, 'username');
      }
    });

    it('every username an update accepts is found again by lookup (whitespace, Unicode, 64 code points)', async () => {
      const asker = await issueUser(t);
      const tail = randomBytes(4).toString('hex');
      const candidates = [`in side ${tail}`, ` lead${tail}`, `trail${tail} `, `Ünïcödé-${tail}`, `${'😀'.repeat(56)}${tail}`, `名字${tail}`];
      for (const candidate of candidates) {
        const u = await issueUser(t);
        const reply = await update(u, { username: candidate });
        if (reply.body.code !== 0) {
          fail(reply, 1004, 'username');
          continue;
        }
        expect(reply.body.data.user.username).toBe(candidate);
        const found = await lookup(asker, candidate);
        expect({ candidate, code: found.body.code, user: found.body.data?.user?.user_id }).toEqual({ candidate, code: 0, user: u.userId });
      }
    });

    it('a username that differs only by trailing space or case is another username on both drivers', async () => {
      const base = uname('pad');
      const a = await issueUser(t, { username: base });
      const b = await issueUser(t);
      const upper = await update(b, { username: base.toUpperCase() });
      expect(upper.body.code).toBe(0);
      const c = await issueUser(t);
      const padded = await update(c, { username: `${base} ` });
      // Either refused as malformed (1004 naming username) or accepted as a distinct name; never a fault, never "taken".
      expect(padded.status).toBe(200);
      if (padded.body.code !== 0) {
        fail(padded, 1004, 'username');
        expect(padded.body.msg).not.toMatch(/taken/);
      }
      expect(ok<{ user: User }>(await lookup(c, base)).user.user_id).toBe(a.userId);
    });
  });

  // =====================================================================================
  describe('GET /app/sdk/users/profile and /users/lookup access', () => {
    it('gives any existing user\'s public profile (stranger, friend, myself) with the same fields as /me', async () => {
      const a = await issueUser(t, { nickname: 'Pub', username: uname('pub'), signature: 'public sig', avatar: 'https://cdn.example.com/p.png' });
      const stranger = await issueUser(t);
      const full = await meUser(a);
      expect(ok<{ user: User }>(await profile(stranger, a.userId)).user).toEqual(full);
      expect(ok<{ user: User }>(await profile(a, a.userId)).user).toEqual(full);
      expect(ok<{ user: User }>(await lookup(stranger, full.username)).user).toEqual(full);
    });

    it('answers 1204 (naming the parameter) for unknown, disabled and blocking users, and again after unblock/enable works', async () => {
      const name = uname('blk');
      const a = await issueUser(t);
      const b = await issueUser(t, { username: name });
      fail(await profile(a, randomUserId()), 1204, 'user_id');
      ok(await t.http.post('/app/sdk/friends/block').set(...bearer(b.token)).send({ user_id: a.userId }));
      fail(await profile(a, b.userId), 1204, 'user_id');
      fail(await lookup(a, name), 1204, 'username');
      // the unknown and the blocked answers are indistinguishable
      const unknown = await profile(a, randomUserId());
      const blocked = await profile(a, b.userId);
      expect(blocked.body.msg).toBe(unknown.body.msg);
      // the blocker still sees the blocked user
      expect(ok<{ user: User }>(await profile(b, a.userId)).user.user_id).toBe(a.userId);
      ok(await t.http.post('/app/sdk/friends/unblock').set(...bearer(b.token)).send({ user_id: a.userId }));
      expect(ok<{ user: User }>(await profile(a, b.userId)).user.user_id).toBe(b.userId);
      ok(await t.http.post('/app/sdk/users/status').set(...hostAuth()).send({ user_id: b.userId, disabled: true }));
      fail(await profile(a, b.userId), 1204, 'user_id');
      fail(await lookup(a, name), 1204, 'username');
      ok(await t.http.post('/app/sdk/users/status').set(...hostAuth()).send({ user_id: b.userId, disabled: false }));
      expect(ok<{ user: User }>(await lookup(a, name)).user.user_id).toBe(b.userId);
    });

    it('refuses malformed parameters with 1004 naming them', async () => {
      const a = await issueUser(t);
      fail(await t.http.get('/app/sdk/users/profile').set(...bearer(a.token)), 1004, 'user_id');
      fail(await profile(a, ''), 1004, 'user_id');
      fail(await profile(a, 'x\u0001y'), 1004, 'user_id');
      fail(await t.http.get('/app/sdk/users/lookup').set(...bearer(a.token)), 1004, 'username');
      fail(await lookup(a, 'u'.repeat(65)), 1004, 'username');
      fail(await t.http.get('/app/sdk/users/lookup?username[a]=b').set(...bearer(a.token)), 1004, 'username');
    });
  });

  // =====================================================================================
  describe('media: limits announced in sync, sniffing', () => {
    it('announces the configured limits in sync and enforces exactly them', async () => {
      const u = await issueUser(t);
      const s = ok<{ media_limits: { max_image_bytes: number; max_file_bytes: number; image_types: string[] }; capabilities: { media: boolean } }>(await syncRaw(u));
      expect(s.capabilities.media).toBe(true);
      expect(s.media_limits).toEqual({ max_image_bytes: MAX_IMAGE, max_file_bytes: MAX_FILE, image_types: expect.arrayContaining(['image/png', 'image/jpeg', 'image/gif', 'image/webp']) });
      const { max_image_bytes: maxImage, max_file_bytes: maxFile } = s.media_limits;
      expect((await uploaded(u, pngOfSize(maxImage), { kind: 'image' })).size).toBe(maxImage);
      fail(await upload(u, pngOfSize(maxImage + 1), { kind: 'image' }), 1004, 'file');
      expect((await uploaded(u, Buffer.alloc(maxFile, 'a'), { kind: 'file' })).size).toBe(maxFile);
      fail(await upload(u, Buffer.alloc(maxFile + 1, 'a'), { kind: 'file' }), 1004, 'file');
      fail(await upload(u, Buffer.alloc(maxFile + 1, 'a')), 1004, 'file');
    });

    it('enforces kind "image" (type and limit) even when the kind field comes after the file part', async () => {
      const u = await issueUser(t);
      fail(await upload(u, pngOfSize(MAX_IMAGE + 1), { kind: 'image', kindAfterFile: true }), 1004, 'file');
      fail(await upload(u, HTML, { kind: 'image', kindAfterFile: true, filename: 'x.png', contentType: 'image/png' }), 1004, 'file');
      const good = await upload(u, PNG, { kind: 'image', kindAfterFile: true });
      expect(ok<{ media: Media }>(good).media).toMatchObject({ kind: 'image', mime_type: 'image/png' });
    });

    it('refuses an invalid or repeated kind with 1004 naming kind', async () => {
      const u = await issueUser(t);
      for (const kind of ['IMAGE', 'video', ' image', 'true']) fail(await upload(u, PNG, { kind }), 1004, 'kind');
      const twice = await t.http.post('/app/sdk/media/upload').set(...bearer(u.token)).field('kind', 'file').field('kind', 'image').attach('file', HTML, 'a.txt');
      fail(twice, 1004, 'kind');
    });

    it('an HTML file named .png and claimed image/png is not an image, and as a file is stored and served as text', async () => {
      const u = await issueUser(t);
      fail(await upload(u, HTML, { filename: 'cute.png', contentType: 'image/png', kind: 'image' }), 1004, 'file');
      const m = await uploaded(u, HTML, { filename: 'cute.png', contentType: 'image/png', kind: 'file' });
      expect(m).toMatchObject({ kind: 'file', mime_type: 'text/plain', size: HTML.length });
      const d = await download(u, m.url);
      expectBytes(d, HTML);
      expect(d.headers['content-type']).toMatch(/^text\/plain/);
      expect(d.headers['x-content-type-options']).toBe('nosniff');
      expect(d.headers['content-disposition']).toMatch(/^attachment/);
    });

    it.each([
      ['SVG with XML declaration', SVG],
      ['SVG without declaration', SVG_NO_DECL],
      ['HTML behind a UTF-8 BOM', BOM_HTML],
    ])('%s named .png is not an image and is never served as SVG/HTML', async (_label, data) => {
      const u = await issueUser(t);
      fail(await upload(u, data, { filename: 'logo.png', contentType: 'image/svg+xml', kind: 'image' }), 1004, 'file');
      const m = await uploaded(u, data, { filename: 'logo.svg', contentType: 'image/svg+xml' });
      expect(m.kind).toBe('file');
      expect(m.mime_type).not.toMatch(/svg|html|xml/);
      const d = await download(u, m.url);
      expectBytes(d, data);
      expect(d.headers['content-type']).not.toMatch(/svg|html|xml/);
      expect(d.headers['x-content-type-options']).toBe('nosniff');
      expect(d.headers['content-disposition']).toMatch(/^attachment/);
    });

    it('a PNG claimed as text/plain named .txt is sniffed as image/png, and kind image accepts it', async () => {
      const u = await issueUser(t);
      const m = await uploaded(u, PNG, { filename: 'notes.txt', contentType: 'text/plain', kind: 'image' });
      expect(m).toMatchObject({ kind: 'image', mime_type: 'image/png' });
      const d = await download(u, m.url);
      expectBytes(d, PNG);
      expect(d.headers['content-type']).toBe('image/png');
      expect(d.headers['content-disposition']).toMatch(/^inline/);
    });

    it('plain text starting with "BM" is text, not a BMP image', async () => {
      const u = await issueUser(t);
      fail(await upload(u, BM_TEXT, { filename: 'cars.bmp', kind: 'image' }), 1004, 'file');
      const m = await uploaded(u, BM_TEXT, { filename: 'cars.txt' });
      expect(m.mime_type).toBe('text/plain');
    });

    it('the media object and url are what the documentation promises', async () => {
      const u = await issueUser(t);
      const m = await uploaded(u, PNG, { filename: 'cat.png', kind: 'image' });
      expect(m).toEqual({
        media_id: expect.stringMatching(/^[1-9][0-9]*$/),
        kind: 'image',
        mime_type: 'image/png',
        size: PNG.length,
        file_name: 'cat.png',
        url: `/app/sdk/media/${m.media_id}`,
        created_at: expect.any(Number),
      });
    });
  });

  // =====================================================================================
  describe('media: access and use in messages', () => {
    it('an image message carries the media and lets the peer (only) download it', async () => {
      const a = await issueUser(t);
      const b = await issueUser(t);
      const stranger = await issueUser(t);
      await befriend(a, b);
      const m = await uploaded(a, PNG, { filename: 'pic.png', kind: 'image' });
      // before it is sent, only the uploader gets it
      fail(await download(b, m.url), 1207);
      const sent = ok<{ message: { content: Body; type: string; conversation_seq: string } }>(
        await sendRaw(a, { conversation_id: friendCid(b), client_message_id: cmid(), type: 'image', content: { media_id: m.media_id, width: 1, height: 1 } }),
      );
      expect(sent.message).toMatchObject({ type: 'image', conversation_seq: '1' });
      expect(sent.message.content).toMatchObject({ media_id: m.media_id, width: 1, height: 1, mime_type: 'image/png', size: PNG.length, file_name: 'pic.png', url: m.url });
      const w = await windowOf(b, friendCid(a));
      expect(w.messages[0].content).toEqual(sent.message.content);
      expectBytes(await download(b, m.url), PNG);
      expectBytes(await download(a, m.url), PNG);
      const refused = await download(stranger, m.url);
      fail(refused, 1207);
      const unknown = await download(stranger, mediaPath('9223372036854775000'));
      fail(unknown, 1207);
      expect(refused.body).toEqual(unknown.body);
    });

    it('a file message carries the media; a recipient cannot re-send someone else\'s media', async () => {
      const a = await issueUser(t);
      const b = await issueUser(t);
      const c = await issueUser(t);
      await befriend(a, b);
      await befriend(b, c);
      const m = await uploaded(a, Buffer.from('%PDF-1.4\nreport\n'), { filename: 'report.pdf' });
      const sent = ok<{ message: { content: Body } }>(await sendRaw(a, { conversation_id: friendCid(b), client_message_id: cmid(), type: 'file', content: { media_id: m.media_id } }));
      expect(sent.message.content).toMatchObject({ media_id: m.media_id, mime_type: 'application/pdf', file_name: 'report.pdf', size: m.size, url: m.url });
      // B (not the uploader) forwards A's media id to C: refused, nothing stored, C still cannot fetch it
      const before = await windowOf(c, friendCid(b));
      fail(await sendRaw(b, { conversation_id: friendCid(c), client_message_id: cmid(), type: 'file', content: { media_id: m.media_id } }), [1004, 1207]);
      expect((await windowOf(c, friendCid(b))).last_seq).toBe(before.last_seq);
      fail(await download(c, m.url), 1207);
    });

    it('refuses image/file messages with a bad media reference with 1004 (or 1207 for an absent one), storing nothing', async () => {
      const a = await issueUser(t);
      const b = await issueUser(t);
      await befriend(a, b);
      const img = await uploaded(a, PNG, { kind: 'image' });
      const cases: Array<[string, Body, number[], string | undefined]> = [
        ['media_id as a JSON number', { media_id: Number(img.media_id) }, [1004], 'media_id'],
        ['empty content', {}, [1004], 'content'],
        ['missing media_id', { width: 10 }, [1004], 'media_id'],
        ['malformed media_id', { media_id: 'abc' }, [1004], 'media_id'],
        ['unknown media_id', { media_id: '9223372036854775000' }, [1004, 1207], undefined],
        ['width as a string', { media_id: img.media_id, width: '100' }, [1004], 'width'],
        ['height as a boolean', { media_id: img.media_id, height: true }, [1004], 'height'],
        ['width fractional', { media_id: img.media_id, width: 1.5 }, [1004], 'width'],
        ['width negative', { media_id: img.media_id, width: -1 }, [1004], 'width'],
      ];
      for (const [label, content, codes, field] of cases) {
        const r = await sendRaw(a, { conversation_id: friendCid(b), client_message_id: cmid(), type: 'image', content });
        expect({ label, code: codes.includes(r.body.code) ? 'expected' : r.body.code, msg: r.body.msg }).toMatchObject({ label, code: 'expected' });
        fail(r, codes, field);
      }
      expect((await windowOf(b, friendCid(a))).last_seq).toBe('0');
    });

    it('an image message must reference an image (a text upload is refused with 1004)', async () => {
      const a = await issueUser(t);
      const b = await issueUser(t);
      await befriend(a, b);
      const text = await uploaded(a, Buffer.from('just some text\n'), { filename: 'a.png', contentType: 'image/png' });
      expect(text.mime_type).toBe('text/plain');
      fail(await sendRaw(a, { conversation_id: friendCid(b), client_message_id: cmid(), type: 'image', content: { media_id: text.media_id } }), 1004);
      expect((await windowOf(b, friendCid(a))).last_seq).toBe('0');
    });

    it('group media: current members get it, outsiders do not; a former member keeps what was sent before leaving', async () => {
      const owner = await issueUser(t);
      const member = await issueUser(t);
      const leaver = await issueUser(t);
      const outsider = await issueUser(t);
      const groupId = await createGroup(owner, [member, leaver]);
      const early = await uploaded(member, PNG, { kind: 'image', filename: 'early.png' });
      ok(await sendRaw(member, { conversation_id: `group_${groupId}`, client_message_id: cmid(), type: 'image', content: { media_id: early.media_id } }));
      for (const u of [owner, member, leaver]) expectBytes(await download(u, early.url), PNG);
      fail(await download(outsider, early.url), 1207);
      await removeMembers(owner, groupId, [leaver]);
      expectBytes(await download(leaver, early.url), PNG);
    });

    it('a former member cannot fetch media sent into the group after he left', async () => {
      const owner = await issueUser(t);
      const leaver = await issueUser(t);
      const groupId = await createGroup(owner, [leaver]);
      await removeMembers(owner, groupId, [leaver]);
      const late = await uploaded(owner, PNG, { kind: 'image', filename: 'late.png' });
      ok(await sendRaw(owner, { conversation_id: `group_${groupId}`, client_message_id: cmid(), type: 'image', content: { media_id: late.media_id } }));
      // he cannot see the message (README: keeps read access to what was sent before), so not its media either
      const w = await windowOf(leaver, `group_${groupId}`);
      expect(w.messages).toEqual([]);
      fail(await download(leaver, late.url), 1207);
    });

    it('a member who joined later cannot fetch media of messages sent before he joined', async () => {
      const owner = await issueUser(t);
      const newcomer = await issueUser(t);
      const groupId = await createGroup(owner, []);
      const old = await uploaded(owner, PNG, { kind: 'image', filename: 'old.png' });
      ok(await sendRaw(owner, { conversation_id: `group_${groupId}`, client_message_id: cmid(), type: 'image', content: { media_id: old.media_id } }));
      await addMembers(owner, groupId, [newcomer]);
      const w = await windowOf(newcomer, `group_${groupId}`);
      expect(w.messages).toEqual([]);
      fail(await download(newcomer, old.url), 1207);
    });

    it('a refused image message links nothing: the intended recipient still cannot download the media', async () => {
      const a = await issueUser(t);
      const b = await issueUser(t);
      await befriend(a, b);
      ok(await t.http.post('/app/sdk/friends/delete').set(...bearer(a.token)).send({ user_id: b.userId }));
      const m = await uploaded(a, PNG, { kind: 'image' });
      fail(await sendRaw(a, { conversation_id: friendCid(b), client_message_id: cmid(), type: 'image', content: { media_id: m.media_id } }), 1203);
      fail(await download(b, m.url), 1207);
      // muted in a group: same
      const owner = await issueUser(t);
      const muted = await issueUser(t);
      const other = await issueUser(t);
      const groupId = await createGroup(owner, [muted, other]);
      ok(await t.http.post('/app/sdk/groups/members/mute').set(...bearer(owner.token)).send({ group_id: groupId, user_id: muted.userId, duration_seconds: 3600 }));
      const gm = await uploaded(muted, PNG, { kind: 'image' });
      fail(await sendRaw(muted, { conversation_id: `group_${groupId}`, client_message_id: cmid(), type: 'image', content: { media_id: gm.media_id } }), 1203);
      fail(await download(other, gm.url), 1207);
      // a retry of a sent image message with another media id is 1004 and links nothing
      await befriend(owner, other);
      const first = await uploaded(owner, PNG, { kind: 'image' });
      const second = await uploaded(owner, pngOfSize(200), { kind: 'image' });
      const key = cmid();
      ok(await sendRaw(owner, { conversation_id: friendCid(other), client_message_id: key, type: 'image', content: { media_id: first.media_id } }));
      fail(await sendRaw(owner, { conversation_id: friendCid(other), client_message_id: key, type: 'image', content: { media_id: second.media_id } }), 1004);
      expectBytes(await download(other, first.url), PNG);
      fail(await download(other, second.url), 1207);
    });

    it('refuses malformed media ids on download with 1004 naming media_id', async () => {
      const u = await issueUser(t);
      for (const id of ['abc', '0', '-5', '1.0', '99999999999999999999']) fail(await download(u, mediaPath(id)), 1004, 'media_id');
    });
  });
});
