// The server API's messages (issue 23): sends as a user, system notices, listings. Each write
// idempotent by request_id (a repeat, a concurrent repeat, a reused key with another body),
// audited with the host as actor, its event reaching the members' sockets; bad input names the
// field and changes nothing.
import type { SendReply, ServerMessagePageReply } from '../../src/contract';
import { adminSession } from '../helpers/admin-client';
import { ApiClient, friendCid, groupCid } from '../helpers/api-client';
import { RtClient, connect, listen } from '../helpers/realtime';
import { TestApp, bearer, hostAuth, issueUser, okData, randomUserId, startTestApp } from '../helpers/test-app';

jest.setTimeout(120_000);

type Envelope = { code: number; msg: string; data: unknown };
const rid = (): string => `r-${randomUserId('x')}`;

describe('server API: messages', () => {
  let t: TestApp;
  let api: ApiClient;
  let url: string;
  const sockets: RtClient[] = [];

  const post = async (path: string, body: object, auth: [string, string] | null = hostAuth()): Promise<Envelope> => {
    const request = t.http.post(`/app/server${path}`);
    if (auth) request.set(...auth);
    return (await request.send(body)).body as Envelope;
  };
  const ok = async <T>(path: string, body: object): Promise<T> =>
    okData<T>(
      await t.http
        .post(`/app/server${path}`)
        .set(...hostAuth())
        .send(body),
    );
  const socketOf = async (user: { token: string }): Promise<RtClient> => {
    const client = await connect(url, { auth: { token: user.token } });
    sockets.push(client);
    return client;
  };
  const lastSeq = async (user: { token: string }, conversationId: string): Promise<string> =>
    (await api.latest(user, conversationId)).last_seq;

  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
    url = await listen(t);
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await t.close();
  });

  it('refuses a missing or wrong secret, and an IM token, with 1001', async () => {
    const [alice] = await api.users(1);
    const body = { request_id: rid(), sender_id: alice.userId, to_user_id: 'x', type: 'text', content: { text: 'x' } };
    expect((await post('/messages/send', body, null)).code).toBe(1001);
    expect((await post('/messages/send', body, ['Authorization', 'Bearer wrong-secret'])).code).toBe(1001);
    expect((await post('/messages/send', body, bearer(alice.token))).code).toBe(1001);
    expect((await post('/messages/list', { group_id: 'g' }, null)).code).toBe(1001);
  });

  it('sends into a group as a member: message.new to the members, audit row, a repeat answers the same', async () => {
    const [alice, bob] = await api.users(2);
    const groupId = await api.createGroup(alice, [bob]);
    const bobSocket = await socketOf(bob);
    const body = {
      request_id: rid(),
      sender_id: alice.userId,
      group_id: groupId,
      type: 'text',
      content: { text: 'hi' },
    };
    const reply = await ok<SendReply>('/messages/send', body);
    expect(reply.message).toMatchObject({
      conversation_id: groupCid(groupId),
      sender_id: alice.userId,
      type: 'text',
      content: { text: 'hi' },
      status: 'normal',
    });
    const event = await bobSocket.waitForEvent(reply.event_id);
    expect(event.type).toBe('message.new');
    expect((event.data.message as { mid: string }).mid).toBe(reply.message.mid);

    // A repeat (keys in another order) answers the stored reply; nothing new is sent.
    const { content, ...rest } = body;
    expect(await ok<SendReply>('/messages/send', { content, ...rest })).toEqual(reply);
    expect(await lastSeq(bob, groupCid(groupId))).toBe(reply.message.conversation_seq);
    // The same request_id with another body: 1004 naming request_id, nothing sent.
    const reused = await post('/messages/send', { ...body, content: { text: 'other' } });
    expect(reused.code).toBe(1004);
    expect(reused.msg).toContain('request_id');
    expect(await lastSeq(bob, groupCid(groupId))).toBe(reply.message.conversation_seq);

    const owner = await adminSession(t, 'owner');
    const audit = okData<{ items: Array<Record<string, unknown>> }>(
      await owner.get('/app/admin/audit', { admin: '(host)', target_id: groupCid(groupId) }),
    );
    expect(audit.items).toEqual([
      expect.objectContaining({
        admin: '(host)',
        actor_kind: 'host',
        action: 'server.message.sent',
        target_type: 'conversation',
        after: { request_id: body.request_id, mid: reply.message.mid, event_id: reply.event_id },
      }),
    ]);
  });

  it('two identical sends at once have one effect and the same reply', async () => {
    const [alice, bob] = await api.users(2);
    const groupId = await api.createGroup(alice, [bob]);
    const body = {
      request_id: rid(),
      sender_id: bob.userId,
      group_id: groupId,
      type: 'text',
      content: { text: 'once' },
    };
    const replies = await Promise.all(Array.from({ length: 5 }, () => post('/messages/send', body)));
    for (const r of replies) expect(r).toEqual(replies[0]);
    expect(replies[0].code).toBe(0);
    expect(await lastSeq(alice, groupCid(groupId))).toBe('1');
  });

  it('takes a request_id of the full 64 characters for sends and notices', async () => {
    const [alice, bob] = await api.users(2);
    const groupId = await api.createGroup(alice, [bob]);
    const long = (c: string): string => `${c}${randomUserId('x')}`.padEnd(64, c);
    const send = {
      request_id: long('s'),
      sender_id: alice.userId,
      group_id: groupId,
      type: 'text',
      content: { text: 'x' },
    };
    const sent = await ok<SendReply>('/messages/send', send);
    expect(await ok<SendReply>('/messages/send', send)).toEqual(sent);
    const notice = { request_id: long('n'), group_id: groupId, content: { text: 'y' } };
    const noticed = await ok<SendReply>('/messages/notice', notice);
    expect(await ok<SendReply>('/messages/notice', notice)).toEqual(noticed);
    expect(await lastSeq(bob, groupCid(groupId))).toBe('2');
    const tooLong = await post('/messages/notice', { ...notice, request_id: `${notice.request_id}n` });
    expect(tooLong.code).toBe(1004);
    expect(tooLong.msg).toContain('request_id');
  });

  it('one-to-one: friendship not required, a block refuses (1203); a group needs membership (1201)', async () => {
    const [alice, bob, carol] = await api.users(3);
    const bobSocket = await socketOf(bob);
    const reply = await ok<SendReply>('/messages/send', {
      request_id: rid(),
      sender_id: alice.userId,
      to_user_id: bob.userId,
      type: 'custom',
      content: { data: { kind: 'order', id: 7 }, description: 'Order 7' },
    });
    expect(reply.message.conversation_id).toBe(friendCid(bob));
    const event = await bobSocket.waitForEvent(reply.event_id);
    expect(event.data.conversation_id).toBe(friendCid(alice));
    expect((await api.latest(bob, friendCid(alice))).messages.map((m) => m.mid)).toEqual([reply.message.mid]);

    await api.block(bob, alice);
    const blocked = await post('/messages/send', {
      request_id: rid(),
      sender_id: alice.userId,
      to_user_id: bob.userId,
      type: 'text',
      content: { text: 'x' },
    });
    expect(blocked.code).toBe(1203);

    const groupId = await api.createGroup(alice, [bob]);
    const outsider = await post('/messages/send', {
      request_id: rid(),
      sender_id: carol.userId,
      group_id: groupId,
      type: 'text',
      content: { text: 'x' },
    });
    expect(outsider.code).toBe(1201);
    expect(await lastSeq(alice, groupCid(groupId))).toBe('0');
  });

  it('refuses bad input naming the field, and sends nothing', async () => {
    const [alice, bob] = await api.users(2);
    const groupId = await api.createGroup(alice, [bob]);
    const base = { sender_id: alice.userId, group_id: groupId, type: 'text', content: { text: 'x' } };
    const cases: Array<[object, string]> = [
      [{ ...base }, 'request_id'],
      [{ ...base, request_id: 'bad id!' }, 'request_id'],
      [{ ...base, request_id: rid(), sender_id: randomUserId() }, 'sender_id'],
      [{ ...base, request_id: rid(), sender_id: null }, 'sender_id'],
      [{ ...base, request_id: rid(), to_user_id: bob.userId }, 'to_user_id'],
      [{ ...base, request_id: rid(), group_id: undefined }, 'to_user_id'],
      [{ ...base, request_id: rid(), group_id: undefined, to_user_id: alice.userId }, 'to_user_id'],
      [{ ...base, request_id: rid(), type: 'notice' }, 'type'],
      [{ ...base, request_id: rid(), type: 'image', content: { media_id: '1' } }, 'type'],
      [{ ...base, request_id: rid(), content: { text: '   ' } }, 'content.text'],
      [{ ...base, request_id: rid(), content: { text: 'x'.repeat(5001) } }, 'content.text'],
      [{ ...base, request_id: rid(), content: { text: { nested: true } } }, 'content.text'],
      [{ ...base, request_id: rid(), content: [] }, 'content'],
    ];
    for (const [body, field] of cases) {
      const reply = await post('/messages/send', body);
      expect({ field, code: reply.code }).toEqual({ field, code: 1004 });
      expect(reply.msg).toContain(field);
    }
    expect(await lastSeq(alice, groupCid(groupId))).toBe('0');
    // Clients can never send a notice.
    const client = await t.http
      .post('/app/sdk/messages/send')
      .set(...bearer(alice.token))
      .send({ conversation_id: groupCid(groupId), client_message_id: 'n1', type: 'notice', content: { text: 'x' } });
    expect(client.body.code).toBe(1004);
    expect(client.body.msg).toContain('type');
  });

  it('posts a system notice into a group and into a pair: type notice, no sender, events to the members', async () => {
    const [alice, bob] = await api.users(2);
    const groupId = await api.createGroup(alice, [bob]);
    const bobSocket = await socketOf(bob);
    const body = { request_id: rid(), group_id: groupId, content: { text: 'Welcome!', data: { link: '/rules' } } };
    const reply = await ok<SendReply>('/messages/notice', body);
    expect(reply.message).toMatchObject({
      conversation_id: groupCid(groupId),
      sender_id: '',
      type: 'notice',
      content: { text: 'Welcome!', data: { link: '/rules' } },
    });
    await bobSocket.waitForEvent(reply.event_id);
    expect(await ok<SendReply>('/messages/notice', body)).toEqual(reply);
    const window = await api.latest(bob, groupCid(groupId));
    expect(window.messages.map((m) => [m.type, m.sender_id])).toEqual([['notice', '']]);
    // A notice counts as unread for every member, the owner included.
    await api.expectUnread(alice, { [groupCid(groupId)]: 1 });

    const pair = await ok<SendReply>('/messages/notice', {
      request_id: rid(),
      user_ids: [alice.userId, bob.userId],
      content: { text: 'You matched!' },
    });
    expect(pair.message.conversation_id).toBe(friendCid(bob));
    const event = await bobSocket.waitForEvent(pair.event_id);
    expect(event.data.conversation_id).toBe(friendCid(alice));

    for (const [bad, field] of [
      [{ request_id: rid(), group_id: groupId, content: { text: '' } }, 'content.text'],
      [{ request_id: rid(), group_id: groupId, content: { text: 'x', data: 'y' } }, 'content.data'],
      [{ request_id: rid(), content: { text: 'x' } }, 'user_ids'],
      [{ request_id: rid(), user_ids: [alice.userId], content: { text: 'x' } }, 'user_ids'],
      [{ request_id: rid(), user_ids: [alice.userId, randomUserId()], content: { text: 'x' } }, 'user_ids'],
    ] as Array<[object, string]>) {
      const refused = await post('/messages/notice', bad);
      expect({ field, code: refused.code }).toEqual({ field, code: 1004 });
      expect(refused.msg).toContain(field);
    }
    expect(await lastSeq(bob, groupCid(groupId))).toBe('1');
  });

  it("lists a conversation's messages by sequence, and a user's conversations as their sync does", async () => {
    const [alice, bob] = await api.users(2);
    const groupId = await api.createGroup(alice, [bob]);
    const sent = await api.sendMany(alice, groupCid(groupId), 5);
    await api.recall(alice, groupCid(groupId), sent[1].mid);
    const first = await ok<ServerMessagePageReply>('/messages/list', { group_id: groupId, count: 3 });
    expect(first.messages.map((m) => m.conversation_seq)).toEqual(['1', '2', '3']);
    expect(first.messages[1].status).toBe('recalled');
    expect(first).toMatchObject({
      conversation_id: groupCid(groupId),
      last_seq: '5',
      has_more: true,
      next_after_seq: '3',
    });
    const second = await ok<ServerMessagePageReply>('/messages/list', { group_id: groupId, after_seq: '3' });
    expect(second.messages.map((m) => m.conversation_seq)).toEqual(['4', '5']);
    expect(second).toMatchObject({ has_more: false, next_after_seq: null });

    await api.befriend(alice, bob);
    await api.send(bob, friendCid(alice), 'hello');
    const pair = await ok<ServerMessagePageReply>('/messages/list', { user_ids: [alice.userId, bob.userId] });
    expect(pair.conversation_id).toBe(friendCid(bob));
    expect(pair.messages.map((m) => m.sender_id)).toEqual([bob.userId]);

    for (const [bad, field] of [
      [{ group_id: groupId, count: 0 }, 'count'],
      [{ group_id: groupId, count: '3' }, 'count'],
      [{ group_id: groupId, limit: 3 }, 'limit'],
      [{ group_id: groupId, after_seq: '-1' }, 'after_seq'],
      [{ group_id: groupId, user_ids: [alice.userId, bob.userId] }, 'user_ids'],
    ] as Array<[object, string]>) {
      const refused = await post('/messages/list', bad);
      expect({ field, code: refused.code }).toEqual({ field, code: 1004 });
      expect(refused.msg).toContain(field);
    }
    expect((await post('/messages/list', { group_id: 'no-such-group' })).code).toBe(1201);

    const listed = await ok<{ items: Array<{ conversation_id: string }>; has_more: boolean }>('/conversations/list', {
      user_id: alice.userId,
    });
    const own = await api.sync(alice);
    expect(listed.items).toEqual(own.conversations.items);
    const unknown = await post('/conversations/list', { user_id: randomUserId() });
    expect(unknown.code).toBe(1004);
    expect(unknown.msg).toContain('user_id');
    await issueUser(t); // the list names nobody else
  });
});

describe('server API: rate limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMITS: 'server_api=2/60s' });
  });
  afterAll(() => t.close());

  it('answers 1005 past the per-host server_api limit, and not before the secret is checked', async () => {
    const list = () =>
      t.http
        .post('/app/server/messages/list')
        .set(...hostAuth())
        .send({ group_id: 'none' });
    // The limit counts in fixed windows of the clock's minutes: hold the clock inside one, so that
    // these requests cannot straddle a minute's edge on a slow machine.
    t.clock.set(Math.ceil(t.clock.now() / 60_000) * 60_000 + 1000);
    expect((await list()).body.code).toBe(1201);
    expect((await list()).body.code).toBe(1201);
    const third = await list();
    expect(third.body.code).toBe(1005);
    expect(third.body.msg).toContain('server API');
    // An unauthenticated caller meets 1001 first, and spends nothing of the host's budget.
    expect((await t.http.post('/app/server/messages/list').send({ group_id: 'none' })).body.code).toBe(1001);
  });
});
