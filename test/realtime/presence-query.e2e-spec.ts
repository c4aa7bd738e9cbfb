// POST /app/sdk/presence/query: friends' presence now, so a client can show who is online before
// any presence.changed arrives (those are never replayed). Only friends are answered, as only
// friends hear presence.changed; strangers, unknown users and blockers' peers are left out.
import { connect, listen, waitForDisconnect } from '../helpers/realtime';
import { Seed } from '../helpers/factories';
import { ApiClient } from '../helpers/api-client';
import { IssuedUser, TestApp, issueUser, startTestApp } from '../helpers/test-app';

describe('presence query (POST /app/sdk/presence/query)', () => {
  let t: TestApp;
  let url: string;
  let api: ApiClient;
  beforeAll(async () => {
    t = await startTestApp();
    url = await listen(t);
    api = new ApiClient(t);
  });
  afterAll(() => t.close());

  const query = (user: IssuedUser, body: unknown) =>
    t.http
      .post('/app/sdk/presence/query')
      .set('Authorization', `Bearer ${user.token}`)
      .send(body as object);

  it("answers friends' presence in the order asked, online and last seen, and leaves everyone else out", async () => {
    const [me, online, offline, never, stranger]: IssuedUser[] = await Promise.all(
      Array.from({ length: 5 }, () => issueUser(t)),
    );
    const seed = new Seed(t);
    await seed.friends(me.id, online.id);
    await seed.friends(me.id, offline.id);
    await seed.friends(me.id, never.id);
    const onlineSocket = await connect(url, { auth: { token: online.token } });
    const gone = await connect(url, { auth: { token: offline.token } });
    const before = Date.now();
    gone.close();
    await waitForDisconnect(gone).catch(() => undefined);
    const strangerSocket = await connect(url, { auth: { token: stranger.token } });

    const asked = [never.userId, stranger.userId, offline.userId, 'nobody_at_all', online.userId];
    const reply = await query(me, { user_ids: asked });
    expect(reply.body).toMatchObject({ code: 0, msg: 'ok' });
    const items = reply.body.data.items as Array<{ user_id: string; online: boolean; last_seen_at: number | null }>;
    expect(items.map((i) => i.user_id)).toEqual([never.userId, offline.userId, online.userId]);
    expect(items[0]).toEqual({ user_id: never.userId, online: false, last_seen_at: null });
    expect(items[2]).toEqual({ user_id: online.userId, online: true, last_seen_at: null });
    // The offline friend's last connection closed: the registry may take a moment to count it.
    let last = items[1];
    for (let i = 0; i < 50 && last.online; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      last = ((await query(me, { user_ids: [offline.userId] })).body.data.items as typeof items)[0];
    }
    expect(last).toEqual({ user_id: offline.userId, online: false, last_seen_at: expect.any(Number) });
    expect(last.last_seen_at!).toBeGreaterThanOrEqual(before - 5000);

    // A friendship that ends ends the answer too.
    await api.unfriend(me, online);
    expect((await query(me, { user_ids: [online.userId] })).body.data).toEqual({ items: [] });
    onlineSocket.close();
    strangerSocket.close();
  });

  it("hides a blocker's presence from the user they blocked, in the query and in presence.changed", async () => {
    const [blocker, blocked, other]: IssuedUser[] = await Promise.all(Array.from({ length: 3 }, () => issueUser(t)));
    const seed = new Seed(t);
    await seed.friends(blocker.id, blocked.id);
    await seed.friends(blocker.id, other.id);
    await api.block(blocker, blocked);
    const blockedWatch = await connect(url, { auth: { token: blocked.token } });
    const otherWatch = await connect(url, { auth: { token: other.token } });
    const blockerSocket = await connect(url, { auth: { token: blocker.token } });
    // The friend who was not blocked hears it; then the blocked user must not have.
    await otherWatch.waitFor(
      () => otherWatch.of('presence.changed').find((e) => e.data.user_id === blocker.userId),
      5000,
      "the blocker's presence at the other friend",
    );
    expect(blockedWatch.of('presence.changed').filter((e) => e.data.user_id === blocker.userId)).toEqual([]);
    expect((await query(blocked, { user_ids: [blocker.userId] })).body.data).toEqual({ items: [] });
    // The blocker still reads the blocked user's presence (a block hides the blocker, not the blocked).
    expect((await query(blocker, { user_ids: [blocked.userId] })).body.data.items).toEqual([
      { user_id: blocked.userId, online: true, last_seen_at: null },
    ]);
    await api.unblock(blocker, blocked);
    expect((await query(blocked, { user_ids: [blocker.userId] })).body.data.items).toEqual([
      { user_id: blocker.userId, online: true, last_seen_at: null },
    ]);
    for (const socket of [blockedWatch, otherWatch, blockerSocket]) socket.close();
  });

  it('refuses a malformed list with 1004 naming user_ids, and answers nothing without a token', async () => {
    const me = await issueUser(t);
    const cases: Array<[unknown, RegExp]> = [
      [{}, /^user_ids/],
      [{ user_ids: 'u_1' }, /^user_ids: must be a JSON array/],
      [{ user_ids: [] }, /^user_ids: must have 1–100 items/],
      [{ user_ids: Array.from({ length: 101 }, (_, i) => `u_${i}`) }, /^user_ids: must have 1–100 items/],
      [{ user_ids: ['u_1', 'u_1'] }, /^user_ids\[1\]: is a duplicate/],
      [{ user_ids: [null] }, /^user_ids\[0\]/],
    ];
    for (const [body, msg] of cases) {
      const reply = await query(me, body);
      expect({ body, code: reply.body.code }).toEqual({ body, code: 1004 });
      expect(reply.body.msg).toMatch(msg);
    }
    const anonymous = await t.http.post('/app/sdk/presence/query').send({ user_ids: ['u_1'] });
    expect(anonymous.body.code).toBe(1101);
  });
});
