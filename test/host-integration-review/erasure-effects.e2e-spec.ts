// Erasure review: what an erasure does to the user's session, friends, groups, reports and tombstone ID.
import { ApiClient, friendCid } from '../helpers/api-client';
import { adminSession } from '../helpers/admin-client';
import { refusal, waitForDisconnect } from '../helpers/realtime';
import { TestApp, hostAuth, startTestApp } from '../helpers/test-app';
import { requestIds, useReviewApp } from './review-kit';

jest.setTimeout(180_000);

const rid = requestIds('e');

describe('host integration review: erasure and export', () => {
  let t: TestApp;
  let api: ApiClient;
  let url: string;
  const { server, rt } = useReviewApp((app) => ({ t, api, url } = app));

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
});
