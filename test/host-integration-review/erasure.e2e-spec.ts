// Black-box review of user erasure and export (docs/host-integration.md, "Erasing a user").
import { ApiClient, friendCid } from '../helpers/api-client';
import { adminSession } from '../helpers/admin-client';
import { connect, listen, refusal, RtClient, sleep, waitForDisconnect } from '../helpers/realtime';
import { isolatedDatabase } from '../helpers/isolated-database';
import { TestApp, hostAuth, randomUserId, startTestApp } from '../helpers/test-app';

jest.setTimeout(180_000);

const rid = (): string => `e-${Math.random().toString(36).slice(2)}-${Date.now()}`;

describe('host integration review: erasure and export', () => {
  let t: TestApp;
  let api: ApiClient;
  let url: string;
  const clients: RtClient[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
    url = await listen(t);
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await t.close();
  });

  const server = (path: string, body: unknown) =>
    t.http
      .post(`/app/server/${path}`)
      .set(...hostAuth())
      .send(body as object);
  const rt = async (token: string): Promise<RtClient> => {
    const c = await connect(url, { auth: { token } });
    clients.push(c);
    return c;
  };

  it('locks out the token and closes the socket with session.revoked 1102; peers see the anonymised profile', async () => {
    const [alice, bob] = await api.users(2);
    await api.befriend(alice, bob);
    await api.send(alice, friendCid(bob), 'secret words');
    const ca = await rt(alice.token);
    const cb = await rt(bob.token);
    const closed = waitForDisconnect(ca, 20_000);
    const res = await server('users/erase', { user_id: alice.userId, request_id: rid() });
    expect(res.body.code).toBe(0);
    expect(res.body.data.status).toBe('erased');
    expect(res.body.data.messages_kept).toBe(false);
    expect(res.body.data.counts.friendships_ended).toBe(1);
    expect(res.body.data.counts.messages_tombstoned).toBe(1);
    await closed;
    expect(
      ca.events.some((e) => e.name === 'session.revoked' && (e.data as { code?: number }).code === 1102) ||
        ca.events.some((e) => e.name === 'session.revoked'),
    ).toBe(true);

    const me = await api.raw.me(alice);
    expect(me.body.code).toBe(1102);

    await cb.waitFor(() => cb.events.find((e) => e.name === 'friend.deleted'), 10_000, 'friend.deleted');
    await cb.waitFor(() => cb.events.find((e) => e.name === 'message.deleted'), 10_000, 'message.deleted');
    const profile = await cb.waitFor(
      () => cb.events.find((e) => e.name === 'user.profile_updated'),
      10_000,
      'user.profile_updated',
    );
    const pd = JSON.stringify(profile.data);
    expect(pd).toContain(alice.userId);
    expect(pd).toContain('Deleted user');
    // Bob's history shows a tombstone, never the text
    const home = await api.syncAll(bob);
    expect(JSON.stringify(home)).not.toContain('secret words');
  });

  it('a new token for the same user_id is a fresh empty user; export before/after', async () => {
    const [alice, bob] = await api.users(2);
    await api.befriend(alice, bob);
    await api.send(alice, friendCid(bob), 'mine');
    const before = await server('users/export', { user_id: alice.userId });
    expect(before.body.code).toBe(0);
    expect(before.body.data.friends.map((f: { user_id: string }) => f.user_id)).toEqual([bob.userId]);
    expect(before.body.data.messages).toHaveLength(1);
    expect(JSON.stringify(before.body.data)).not.toContain('unread');

    expect((await server('users/erase', { user_id: alice.userId })).body.data.status).toBe('erased');
    const after = await server('users/export', { user_id: alice.userId });
    expect(after.body.code).toBe(1204);

    const again = await api.user({ user_id: alice.userId });
    expect(again.id).not.toBe(alice.id);
    expect((await api.friends(again)).items).toEqual([]);
    const fresh = await server('users/export', { user_id: alice.userId });
    expect(fresh.body.code).toBe(0);
    expect(fresh.body.data.friends).toEqual([]);
    expect(fresh.body.data.messages).toEqual([]);
    // Bob's old conversation is not attached to the new user
    const list = await server('messages/list', { user_ids: [alice.userId, bob.userId] });
    if (list.body.code === 0) expect(list.body.data.messages).toHaveLength(0);
    else expect(list.body.code).toBe(1201);
  });

  it('erasing twice: not_found the second time; same request_id answers the first reply', async () => {
    const [alice] = await api.users(1);
    const id = rid();
    const first = await server('users/erase', { user_id: alice.userId, request_id: id });
    expect(first.body.data.status).toBe('erased');
    const repeat = await server('users/erase', { user_id: alice.userId, request_id: id });
    expect(repeat.body).toEqual(first.body);
    const second = await server('users/erase', { user_id: alice.userId });
    expect(second.body.code).toBe(0);
    expect(second.body.data.status).toBe('not_found');
    const other = await server('users/erase', { user_id: randomUserId(), request_id: id });
    expect(other.body.code).toBe(1004);
    expect(other.body.msg).toContain('request_id');
  });

  it('5 erasures at once: exactly one erased, the rest in_progress or not_found; events once', async () => {
    const [alice, bob] = await api.users(2);
    await api.befriend(alice, bob);
    const cb = await rt(bob.token);
    const replies = await Promise.all(
      Array.from({ length: 5 }, () => server('users/erase', { user_id: alice.userId })),
    );
    for (const r of replies) expect(r.body.code).toBe(0);
    const statuses = replies.map((r) => r.body.data.status as string);
    expect(statuses.filter((s) => s === 'erased')).toHaveLength(1);
    for (const s of statuses) expect(['erased', 'in_progress', 'not_found']).toContain(s);
    await cb.waitFor(() => cb.events.find((e) => e.name === 'user.profile_updated'), 10_000, 'profile');
    await sleep(500);
    expect(cb.events.filter((e) => e.name === 'friend.deleted')).toHaveLength(1);
  });

  it('a send racing the erasure leaves no readable message of the user behind', async () => {
    const [alice, bob] = await api.users(2);
    await api.befriend(alice, bob);
    const sends = Array.from({ length: 15 }, (_, i) => api.raw.sendText(alice, friendCid(bob), `race ${i}`));
    const erase = server('users/erase', { user_id: alice.userId });
    const results = await Promise.all([...sends, erase]);
    const er = results[results.length - 1];
    expect(er.body.code).toBe(0);
    expect(['erased', 'in_progress']).toContain(er.body.data.status);
    // make sure it is complete
    for (let i = 0; i < 20; i += 1) {
      const r = await server('users/erase', { user_id: alice.userId });
      if (r.body.data.status === 'not_found') break;
      await sleep(500);
    }
    const page = await api.window(bob, friendCid(bob).replace(bob.userId, bob.userId), {}).catch(() => null);
    void page;
    // Look through Bob's whole view of the conversation (named by the tombstone id now)
    const home = await api.syncAll(bob);
    const text = JSON.stringify(home);
    expect(text).not.toMatch(/race \d+/);
    // The whole conversation, as the host sees it
    const conv = home.items.find((i) => (i as { conversation_id: string }).conversation_id.startsWith('friend_'));
    if (conv) {
      const w = await api.raw.messages(bob, {
        conversation_id: (conv as { conversation_id: string }).conversation_id,
        known_last_seq: '0',
        known_updated_at: '0',
        known_deletion_revision: '0',
      });
      expect(JSON.stringify(w.body)).not.toMatch(/race \d+/);
    }
  });

  it('ERASE_KEEPS_MESSAGES=true keeps messages under the anonymised profile', async () => {
    const keep = await startTestApp({ ERASE_KEEPS_MESSAGES: 'true' });
    try {
      const kapi = new ApiClient(keep);
      const [alice, bob] = await kapi.users(2);
      await kapi.befriend(alice, bob);
      await kapi.send(alice, friendCid(bob), 'kept text');
      const res = await keep.http
        .post('/app/server/users/erase')
        .set(...hostAuth())
        .send({ user_id: alice.userId });
      expect(res.body.data.status).toBe('erased');
      expect(res.body.data.messages_kept).toBe(true);
      const home = await kapi.syncAll(bob);
      expect(JSON.stringify(home)).toContain('kept text');
      expect(JSON.stringify(home)).not.toContain(alice.userId);
    } finally {
      await keep.close();
    }
  });

  it('erase/export bad input: 1004 naming the field', async () => {
    const [real] = await api.users(1);
    for (const [path, body, field] of [
      ['users/erase', {}, 'user_id'],
      ['users/erase', { user_id: null }, 'user_id'],
      ['users/erase', { user_id: 5 }, 'user_id'],
      ['users/erase', { user_id: 'x'.repeat(10_000) }, 'user_id'],
      ['users/erase', { user_id: 'ok', request_id: 'a b' }, 'request_id'],
      ['users/erase', { user_id: 'ok', request_id: 'x'.repeat(65) }, 'request_id'],
      ['users/export', { user_id: ['a'] }, 'user_id'],
      ['users/export', { user_id: real.userId, cursor: 5 }, 'cursor'],
      ['users/export', { user_id: real.userId, cursor: 'garbage' }, 'cursor'],
    ] as Array<[string, object, string]>) {
      const r = await server(path, body);
      expect({ path, body: JSON.stringify(body).slice(0, 60), code: r.body.code }).toEqual({
        path,
        body: JSON.stringify(body).slice(0, 60),
        code: 1004,
      });
      expect(r.body.msg).toContain(field);
    }
  });

  it('an export cursor is bound to its user', async () => {
    const [alice, bob] = await api.users(2);
    await api.befriend(alice, bob);
    // 501 messages to get a second page
    for (let i = 0; i < 501; i += 25)
      await Promise.all(
        Array.from({ length: Math.min(25, 501 - i) }, (_, j) => api.raw.sendText(alice, friendCid(bob), `m${i + j}`)),
      );
    const first = await server('users/export', { user_id: alice.userId });
    expect(first.body.data.messages).toHaveLength(500);
    expect(first.body.data.has_more).toBe(true);
    const stolen = await server('users/export', { user_id: bob.userId, cursor: first.body.data.next_cursor });
    expect(stolen.body.code).toBe(1004);
    expect(stolen.body.msg).toContain('cursor');
    const tampered =
      first.body.data.next_cursor.slice(0, -2) + (first.body.data.next_cursor.endsWith('A') ? 'BB' : 'AA');
    expect((await server('users/export', { user_id: alice.userId, cursor: tampered })).body.code).toBe(1004);
    const second = await server('users/export', { user_id: alice.userId, cursor: first.body.data.next_cursor });
    expect(second.body.data.messages).toHaveLength(1);
    expect(second.body.data.friends).toBeNull();
    expect(second.body.data.has_more).toBe(false);
  });

  it('groups: ownership passes to the longest-standing admin, a lone group is dismissed; old token cannot reconnect', async () => {
    const [alice, m1, adm] = await api.users(3);
    const shared = await api.createGroup(alice, [m1, adm]);
    await api.setAdmin(alice, shared, adm, true);
    const alone = await api.createGroup(alice, []);
    const cm = await rt(m1.token);
    const res = await server('users/erase', { user_id: alice.userId });
    expect(res.body.data.status).toBe('erased');
    expect(res.body.data.counts.groups_transferred).toBe(1);
    expect(res.body.data.counts.groups_dismissed).toBe(1);
    expect((await api.group(m1, shared)).owner_user_id).toBe(adm.userId);
    await cm.waitFor(() => cm.events.find((e) => e.name === 'group.owner_transferred'), 10_000, 'owner_transferred');
    const g = await server('messages/list', { group_id: alone });
    expect(g.status).toBeLessThan(500);
    const r = await refusal(url, { auth: { token: alice.token } });
    expect(r.code).toBe(1102);
  });

  it('reports filed by the user stay, attributed to the anonymised reporter', async () => {
    const [alice, bob] = await api.users(2);
    const rep = await api.raw.reportUser(alice, {
      user_id: bob.userId,
      request_id: `rep-${rid()}`,
      reason_code: 1,
      description: 'spam from bob',
    });
    expect(rep.body.code).toBe(0);
    expect((await server('users/erase', { user_id: alice.userId })).body.data.status).toBe('erased');
    const viewer = await adminSession(t, 'viewer');
    const list = await viewer.get('/app/admin/reports');
    expect(list.body.code).toBe(0);
    const text = JSON.stringify(list.body.data);
    expect(text).toContain('spam from bob');
    expect(text).not.toContain(alice.userId);
  });

  it("export: only the user's own messages and data, conversation_id as the user sees it", async () => {
    const [alice, bob] = await api.users(2);
    await api.befriend(alice, bob);
    await api.send(alice, friendCid(bob), 'from alice');
    await api.send(bob, friendCid(alice), 'from bob (private to bob)');
    await api.updateMe(bob, { signature: 'bob secret signature' });
    const ex = await server('users/export', { user_id: alice.userId });
    expect(ex.body.code).toBe(0);
    const text = JSON.stringify(ex.body.data);
    expect(text).not.toContain('from bob');
    expect(text).not.toContain('bob secret signature');
    expect(ex.body.data.messages).toHaveLength(1);
    expect(ex.body.data.messages[0].conversation_id).toBe(friendCid(bob));
    expect(ex.body.data.has_more).toBe(false);
    expect(ex.body.data.next_cursor).toBeNull();
  });

  it("a stream of sends racing the erasure: none of the user's text remains readable", async () => {
    const [alice, bob] = await api.users(2);
    await api.befriend(alice, bob);
    let stop = false;
    const codes: number[] = [];
    const sender = (async () => {
      for (let i = 0; !stop && i < 400; i += 1) {
        const r = await api.raw.sendText(alice, friendCid(bob), `stream ${i}`);
        codes.push(r.body.code);
        if (r.body.code !== 0) break;
      }
    })();
    await sleep(150);
    const er = await server('users/erase', { user_id: alice.userId });
    stop = true;
    await sender;
    expect(er.body.code).toBe(0);
    for (let i = 0; i < 60; i += 1) {
      const r = await server('users/erase', { user_id: alice.userId });
      if (r.body.data.status === 'not_found') break;
      await sleep(500);
    }
    const home = await api.syncAll(bob);
    const conv = home.items.find((it) =>
      String((it as { conversation_id: string }).conversation_id).startsWith('friend_'),
    ) as { conversation_id: string } | undefined;
    expect(conv).toBeDefined();
    const peer = Buffer.from(conv!.conversation_id.slice('friend_'.length), 'base64url').toString();
    expect(peer).toMatch(/^erased_[0-9a-f]{32}$/);
    const all = await server('messages/list', { user_ids: [bob.userId, peer], count: 200 });
    expect(all.body.code).toBe(0);
    const readable = (all.body.data.messages as Array<{ content: unknown; status: string }>).filter(
      (m) => m.content !== null,
    );
    expect(readable).toEqual([]);
    expect(codes.filter((c) => c === 0).length).toBeGreaterThan(0);
  });

  /** Erases a fresh user who had a friend with history; answers the friend and the tombstone ID. */
  async function erasedWithPeer(): Promise<{ bob: Awaited<ReturnType<ApiClient['user']>>; tomb: string }> {
    const [alice, bob] = await api.users(2);
    await api.befriend(alice, bob);
    await api.send(bob, friendCid(alice), 'to alice, private');
    expect((await server('users/erase', { user_id: alice.userId })).body.data.status).toBe('erased');
    const home = await api.syncAll(bob);
    const conv = home.items.find((it) =>
      String((it as { conversation_id: string }).conversation_id).startsWith('friend_'),
    ) as {
      conversation_id: string;
    };
    const tomb = Buffer.from(conv.conversation_id.slice('friend_'.length), 'base64url').toString();
    expect(tomb).toMatch(/^erased_[0-9a-f]{32}$/);
    return { bob, tomb };
  }

  it('erase of the tombstone ID is not_found', async () => {
    const { tomb } = await erasedWithPeer();
    expect((await server('users/erase', { user_id: tomb })).body.data.status).toBe('not_found');
  });

  // Was a defect (fixed in 7768a5a): docs say "The erased user stays as an anonymous, disabled row",
  // but users/status with the tombstone ID re-enabled the row and /app/sdk/token then issued a
  // working token for the erased account, which read the peer's old one-to-one history.
  it('the erased row cannot be re-enabled or given a token through its tombstone ID', async () => {
    const { bob, tomb } = await erasedWithPeer();
    await api.raw.userStatus(tomb, false);
    const token = await api.raw.token({ user_id: tomb, nickname: 'Someone new' });
    if (token.body.code === 0) {
      const history = await api.raw.messages(
        { token: token.body.data.token },
        { conversation_id: friendCid(bob), known_last_seq: '0', known_updated_at: '0', known_deletion_revision: '0' },
      );
      expect(JSON.stringify(history.body)).not.toContain('to alice, private');
    }
    expect(token.body.code).not.toBe(0);
  });

  // Was a defect (fixed in 7768a5a): users/upsert with the tombstone ID replaced the anonymised profile.
  it('the anonymised profile cannot be overwritten through the tombstone ID', async () => {
    const { bob, tomb } = await erasedWithPeer();
    const up = await api.raw.upsertUser({ user_id: tomb, nickname: 'Alice again' });
    expect(up.body.code).not.toBe(0);
    const home = await api.syncAll(bob);
    const item = home.items.find((it) => (it as { peer_user_id?: string }).peer_user_id === tomb) as { title: string };
    expect(item.title).toBe('Deleted user');
    expect(JSON.stringify(home)).not.toContain('Alice again');
  });

  it("erasure on one instance closes the user's socket held by another instance", async () => {
    const db = await isolatedDatabase();
    const t1 = await startTestApp(db.env);
    const t2 = await startTestApp(db.env);
    try {
      const api1 = new ApiClient(t1);
      const alice = await api1.user();
      const url2 = await listen(t2);
      const socket = await connect(url2, { auth: { token: alice.token } });
      try {
        const closed = waitForDisconnect(socket, 30_000);
        const res = await t1.http
          .post('/app/server/users/erase')
          .set(...hostAuth())
          .send({ user_id: alice.userId });
        expect(res.body.data.status).toBe('erased');
        await closed;
        // AUTH_CACHE_MS (1 s by default) may serve the other instance's cached token version a moment
        let code = 0;
        for (let i = 0; i < 50 && code !== 1102; i += 1) {
          code = (await new ApiClient(t2).raw.me(alice)).body.code;
          if (code !== 1102) await sleep(200);
        }
        expect(code).toBe(1102);
      } finally {
        socket.close();
      }
    } finally {
      await t1.close();
      await t2.close();
      await db.drop();
    }
  });

  it('sends through another instance around the erasure leave nothing readable (AUTH_CACHE_MS window)', async () => {
    const db = await isolatedDatabase();
    const t1 = await startTestApp(db.env);
    const t2 = await startTestApp(db.env);
    try {
      const api1 = new ApiClient(t1);
      const api2 = new ApiClient(t2);
      const [alice, bob] = await api1.users(2);
      await api1.befriend(alice, bob);
      await api2.send(alice, friendCid(bob), 'warm the cache');
      let stop = false;
      const codes: number[] = [];
      const sender = (async () => {
        for (let i = 0; !stop && i < 300; i += 1) {
          const r = await api2.raw.sendText(alice, friendCid(bob), `late ${i}`);
          codes.push(r.body.code);
          if (r.body.code !== 0 && codes.filter((c) => c !== 0).length > 3) break;
        }
      })();
      await sleep(100);
      const er = await t1.http
        .post('/app/server/users/erase')
        .set(...hostAuth())
        .send({ user_id: alice.userId });
      expect(er.body.data.status).toBe('erased');
      await sleep(2500);
      stop = true;
      await sender;
      const home = await api1.syncAll(bob);
      const conv = home.items.find((it) =>
        String((it as { conversation_id: string }).conversation_id).startsWith('friend_'),
      ) as {
        conversation_id: string;
      };
      const peer = Buffer.from(conv.conversation_id.slice('friend_'.length), 'base64url').toString();
      const all = await t1.http
        .post('/app/server/messages/list')
        .set(...hostAuth())
        .send({ user_ids: [bob.userId, peer], count: 200 });
      const readable = (all.body.data.messages as Array<{ content: unknown; conversation_seq: string }>).filter(
        (m) => m.content !== null,
      );
      expect({ accepted: codes.filter((c) => c === 0).length > 0, readable }).toEqual({ accepted: true, readable: [] });
    } finally {
      await t1.close();
      await t2.close();
      await db.drop();
    }
  });

  it('5 erasures at once with one request_id: one erasure; afterwards the request_id answers the erased reply', async () => {
    const [alice, bob] = await api.users(2);
    await api.befriend(alice, bob);
    const id = rid();
    const replies = await Promise.all(
      Array.from({ length: 5 }, () => server('users/erase', { user_id: alice.userId, request_id: id })),
    );
    for (const r of replies) {
      expect(r.status).toBe(200);
      expect(r.body.code).toBe(0);
      expect(['erased', 'in_progress']).toContain(r.body.data.status);
    }
    expect(replies.filter((r) => r.body.data.status === 'erased').length).toBeGreaterThanOrEqual(1);
    const erased = replies.find((r) => r.body.data.status === 'erased')!;
    const later = await server('users/erase', { user_id: alice.userId, request_id: id });
    expect(later.body).toEqual(erased.body);
    expect((await api.friends(bob)).items).toHaveLength(0);
  });
});
