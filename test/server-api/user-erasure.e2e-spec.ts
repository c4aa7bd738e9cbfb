// POST /app/server/users/erase (issue 23, server API): a data-protection erasure, under both
// ERASE_KEEPS_MESSAGES settings. What peers see (events, tombstones, groups), what the erased
// user's old token and sockets meet, that the host's user_id is free for a new user, and that a
// repeat, a concurrent repeat and bad input change nothing.
import { DataSource } from 'typeorm';
import { ActivityTracker } from '../../src/analytics/activity-tracker.service';
import { DAY_MS, dayOf } from '../../src/analytics/rollup';
import type { UserErasureReply } from '../../src/contract';
import { ApiClient, friendCid, groupCid } from '../helpers/api-client';
import { passwordLogin, signUp } from '../helpers/host-app-client';
import { connect, listen, waitForDisconnect } from '../helpers/realtime';
import {
  TestApp,
  bearer,
  hostAuth,
  issueUser,
  okData,
  randomGroupId,
  randomUserId,
  startTestApp,
} from '../helpers/test-app';

jest.setTimeout(120_000);

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

async function erase(t: TestApp, body: Record<string, unknown>): Promise<UserErasureReply> {
  return okData<UserErasureReply>(
    await t.http
      .post('/app/server/users/erase')
      .set(...hostAuth())
      .send(body),
  );
}

describe.each([
  ['false', false],
  ['true', true],
])('POST /app/server/users/erase with ERASE_KEEPS_MESSAGES=%s', (setting, keeps) => {
  let t: TestApp;
  let api: ApiClient;
  let url: string;

  beforeAll(async () => {
    t = await startTestApp({ ERASE_KEEPS_MESSAGES: setting });
    api = new ApiClient(t);
    url = await listen(t);
  });
  afterAll(() => t.close());

  it('locks the user out, ends their relations and groups, handles their messages and frees their user_id', async () => {
    const [alice, bob, carol, dave, erin] = await api.users(5);
    await api.befriend(alice, bob);
    const direct = await api.send(alice, friendCid(bob), 'hello bob');
    const sentPic = await api.upload(alice, PNG, { filename: 'pic.png', kind: 'image' });
    await api.upload(alice, PNG, { filename: 'unsent.png', kind: 'image' });
    okData(
      await api.raw.send(alice, {
        conversation_id: friendCid(bob),
        client_message_id: `img-${alice.userId}`,
        type: 'image',
        content: { media_id: sentPic.media_id, width: 1, height: 1 },
      }),
    );
    expect((await api.download(bob, sentPic.url)).bytes).toEqual(PNG);
    const owned = await api.createGroup(alice, [carol, dave]);
    await api.setAdmin(alice, owned, carol, true);
    const inOwned = await api.send(alice, groupCid(owned), 'hello group');
    const alone = await api.createGroup(alice);
    const carols = await api.createGroup(carol, [alice]);
    await api.friendRequest(alice, erin);

    const aliceSocket = await connect(url, { auth: { token: alice.token } });
    const bobSocket = await connect(url, { auth: { token: bob.token } });
    const daveSocket = await connect(url, { auth: { token: dave.token } });

    // What an operator wrote about her and when she was last active go with the rest.
    await t.app
      .get(DataSource)
      .query('UPDATE users SET disabled_reason = ?, last_active_at = ? WHERE id = ?', [
        'spam, twice',
        Date.now(),
        alice.id,
      ]);
    // Her activity history (DAU/MAU's source): today's from her requests, and an older day.
    const tracker = t.app.get(ActivityTracker);
    await tracker.flush();
    const activeDays = async (id: string): Promise<number> =>
      Number(
        (
          (await t.app
            .get(DataSource)
            .query('SELECT COUNT(*) AS n FROM analytics_user_days WHERE user_id = ?', [id])) as Array<{ n: unknown }>
        )[0].n,
      );
    await t.app
      .get(DataSource)
      .query('INSERT INTO analytics_user_days (day, user_id) VALUES (?, ?)', [
        dayOf(Date.now()) - 200 * DAY_MS,
        alice.id,
      ]);
    expect(await activeDays(alice.id)).toBe(2);
    const bobsDays = await activeDays(bob.id);
    expect(bobsDays).toBeGreaterThan(0);
    const reply = await erase(t, { user_id: alice.userId, request_id: `erase-${alice.userId}` });
    expect(reply).toEqual({
      status: 'erased',
      erased_at: expect.any(Number),
      messages_kept: keeps,
      counts: {
        friendships_ended: 1,
        friend_requests_deleted: 2, // the accepted one from bob and the pending one to erin
        blocks_deleted: 0,
        groups_left: 3,
        groups_transferred: 1,
        groups_dismissed: 1,
        messages_tombstoned: keeps ? 0 : 3,
        // The upload no message carries goes either way; the sent one only with its message.
        media_deleted: keeps ? 1 : 2,
        client_errors_deleted: 0,
        host_accounts_deleted: 0,
      },
    });

    // The erased user's live socket ends as a forced logout does; the old token is refused.
    const revoked = await aliceSocket.waitFor(() => aliceSocket.of('session.revoked')[0], 15_000, 'session.revoked');
    expect(revoked.data).toEqual({ code: 1102 });
    await waitForDisconnect(aliceSocket, 10_000);
    expect((await t.http.get('/app/sdk/users/me').set(...bearer(alice.token))).body.code).toBe(1102);

    // Bob: the friendship ended, the message (tombstone mode) deleted, the profile anonymised.
    await bobSocket.waitFor(() => bobSocket.of('friend.deleted')[0], 15_000, 'friend.deleted');
    const profile = await bobSocket.waitFor(
      () =>
        bobSocket
          .of('user.profile_updated')
          .find((e) => (e.data as { user: { nickname: string } }).user.nickname === 'Deleted user'),
      15_000,
      'user.profile_updated',
    );
    expect((profile.data as { user: Record<string, unknown> }).user).toMatchObject({
      user_id: alice.userId,
      nickname: 'Deleted user',
      username: '',
      signature: '',
    });
    if (!keeps) {
      const deleted = await bobSocket.waitFor(
        () =>
          bobSocket
            .of('message.deleted')
            .find((e) => (e.data as { message: { mid: string } }).message.mid === direct.message.mid),
        15_000,
        'message.deleted',
      );
      expect(deleted.data).toMatchObject({ message: { mid: direct.message.mid, status: 'deleted', content: null } });
    }
    expect(await api.friends(bob)).toMatchObject({ items: [] });
    const download = await api.download(bob, sentPic.url);
    if (keeps) expect(download.bytes).toEqual(PNG);
    else expect(download.body).toMatchObject({ code: 1207 });

    // The owned group passed to its admin (carol); dave was told. The lone group was dismissed.
    await daveSocket.waitFor(() => daveSocket.of('group.owner_transferred')[0], 15_000, 'group.owner_transferred');
    expect(await api.groupRoles(carol, owned)).toEqual({ [carol.userId]: 'owner', [dave.userId]: 'member' });
    expect(await api.groupRoles(carol, carols)).toEqual({ [carol.userId]: 'owner' });
    const window = await api.latest(carol, groupCid(owned));
    const message = window.messages.find((m) => m.mid === inOwned.message.mid);
    expect(message).toMatchObject(
      keeps ? { status: 'normal', content: { text: 'hello group' } } : { status: 'deleted', content: null },
    );
    // The kept message's sender is the anonymised profile, not the host's ID.
    expect(message?.sender_id).not.toBe(alice.userId);
    expect(
      (
        await t.http
          .get('/app/sdk/groups/get')
          .set(...bearer(carol.token))
          .query({ group_id: alone })
      ).body.code,
    ).toBe(1209);

    const [row] = (await t.app
      .get(DataSource)
      .query('SELECT disabled_reason, disabled_until, last_active_at FROM users WHERE id = ?', [alice.id])) as Array<
      Record<string, unknown>
    >;
    expect(row).toEqual({ disabled_reason: null, disabled_until: null, last_active_at: null });
    await tracker.flush();
    expect({ alice: await activeDays(alice.id), bob: await activeDays(bob.id) }).toEqual({ alice: 0, bob: bobsDays });

    // Erased or unknown: nothing to do, said clearly. The same request_id replays the first reply.
    expect(await erase(t, { user_id: alice.userId })).toMatchObject({ status: 'not_found', erased_at: null });
    expect(await erase(t, { user_id: alice.userId, request_id: `erase-${alice.userId}` })).toEqual(reply);

    // The host's user_id now starts a new, empty user.
    const again = await issueUser(t, { user_id: alice.userId });
    expect(again.id).not.toBe(alice.id);
    expect(await api.friends(again)).toMatchObject({ items: [] });
    expect(await api.myGroupIds(again)).toEqual([]);
    expect((await t.http.get('/app/sdk/users/me').set(...bearer(again.token))).body.data.user.nickname).not.toBe(
      'Deleted user',
    );

    for (const socket of [bobSocket, daveSocket]) socket.close();
  });

  it('two erasures of one user at once: one erases, the other changes nothing', async () => {
    const [frank, grace] = await api.users(2);
    await api.befriend(frank, grace);
    await api.send(frank, friendCid(grace), 'x');
    const replies = await Promise.all([erase(t, { user_id: frank.userId }), erase(t, { user_id: frank.userId })]);
    expect(replies.filter((r) => r.status === 'erased')).toHaveLength(1);
    expect(replies.find((r) => r.status === 'erased')?.counts.friendships_ended).toBe(1);
    expect(await api.friends(grace)).toMatchObject({ items: [] });
  });
});

describe('POST /app/server/users/erase: the bundled host app, refusals', () => {
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
  });
  afterAll(() => t.close());

  it('deletes the bundled host application account linked to the user, with its sessions', async () => {
    const account = await signUp(t);
    expect((await account.get('/app/auth/me')).body.code).toBe(0);
    const reply = await erase(t, { user_id: account.userId });
    expect(reply).toMatchObject({ status: 'erased', counts: { host_accounts_deleted: 1 } });
    expect((await account.get('/app/auth/me')).body.code).toBe(1102);
    expect((await passwordLogin(t, account.phone)).body.code).not.toBe(0);
  });

  it('answers 1004 naming the field for bad input and 1001 without the secret, changing nothing', async () => {
    const [henry] = await api.users(1);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'user_id'],
      [{ user_id: 42 }, 'user_id'],
      [{ user_id: null }, 'user_id'],
      [{ user_id: '' }, 'user_id'],
      [{ user_id: ' padded' }, 'user_id'],
      [{ user_id: 'x'.repeat(65) }, 'user_id'],
      [{ user_id: { nested: true } }, 'user_id'],
      [{ user_id: henry.userId, request_id: 'bad id!' }, 'request_id'],
      [{ user_id: henry.userId, request_id: 7 }, 'request_id'],
    ];
    for (const [body, field] of cases) {
      const response = await t.http
        .post('/app/server/users/erase')
        .set(...hostAuth())
        .send(body);
      expect({ body, code: response.body.code }).toEqual({ body, code: 1004 });
      expect(response.body.msg).toContain(field);
    }
    const noSecret = await t.http.post('/app/server/users/erase').send({ user_id: henry.userId });
    expect(noSecret.body.code).toBe(1001);
    const wrongSecret = await t.http
      .post('/app/server/users/erase')
      .set('Authorization', 'Bearer not-the-secret')
      .send({ user_id: henry.userId });
    expect(wrongSecret.body.code).toBe(1001);
    // henry is untouched: his token works.
    expect((await t.http.get('/app/sdk/users/me').set(...bearer(henry.token))).body.code).toBe(0);
    expect(await erase(t, { user_id: randomUserId('nobody') })).toMatchObject({ status: 'not_found' });
  });

  it('a live claim of another erasure answers in_progress and changes nothing; an expired one is resumed', async () => {
    const [kate] = await api.users(1);
    const db = t.app.get(DataSource);
    // As an erasure on another instance leaves its row while it runs (or after it died).
    await db.query(
      'INSERT INTO user_erasures (user_id, status, lease_until, created_at, completed_at) VALUES (?, ?, ?, ?, NULL)',
      [kate.id, 'running', t.clock.now() + 3_600_000, t.clock.now()],
    );
    expect(await erase(t, { user_id: kate.userId })).toMatchObject({ status: 'in_progress', erased_at: null });
    expect((await t.http.get('/app/sdk/users/me').set(...bearer(kate.token))).body.code).toBe(0);
    await db.query('UPDATE user_erasures SET lease_until = ? WHERE user_id = ?', [t.clock.now() - 1, kate.id]);
    expect(await erase(t, { user_id: kate.userId })).toMatchObject({ status: 'erased' });
    expect((await t.http.get('/app/sdk/users/me').set(...bearer(kate.token))).body.code).toBe(1102);
    expect(await db.query('SELECT status FROM user_erasures WHERE user_id = ?', [kate.id])).toEqual([
      { status: 'done' },
    ]);
  });

  it('a request_id reused for another user is 1004 naming request_id', async () => {
    const [ivan, judy] = await api.users(2);
    const requestId = `erase-${randomGroupId()}`;
    expect(await erase(t, { user_id: ivan.userId, request_id: requestId })).toMatchObject({ status: 'erased' });
    const reused = await t.http
      .post('/app/server/users/erase')
      .set(...hostAuth())
      .send({ user_id: judy.userId, request_id: requestId });
    expect(reused.body.code).toBe(1004);
    expect(reused.body.msg).toContain('request_id');
    expect((await t.http.get('/app/sdk/users/me').set(...bearer(judy.token))).body.code).toBe(0);
  });
});
