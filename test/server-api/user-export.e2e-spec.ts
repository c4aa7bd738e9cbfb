// POST /app/server/users/export (issue 23, server API): a user's data as JSON, the messages a
// page at a time by cursor. Only the user's own data: never another user's messages or profile.
import { DataSource } from 'typeorm';
import type { UserExportReply } from '../../src/contract';
import { EXPORT_PAGE_SIZE } from '../../src/server-api/user-export.service';
import { ApiClient, friendCid, groupCid } from '../helpers/api-client';
import { TestApp, hostAuth, okData, randomUserId, startTestApp } from '../helpers/test-app';

jest.setTimeout(300_000);

describe('POST /app/server/users/export', () => {
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
  });
  afterAll(() => t.close());

  const exportPage = async (body: Record<string, unknown>): Promise<UserExportReply> =>
    okData<UserExportReply>(
      await t.http
        .post('/app/server/users/export')
        .set(...hostAuth())
        .send(body),
    );

  it('exports profile, friends, blocks, groups with role, reports filed and every own message by page', async () => {
    const [alice, bob, carol, mallory] = await api.users(4);
    await api.befriend(alice, bob);
    await api.block(alice, mallory);
    const groupId = await api.createGroup(carol, [alice]);
    const own = await api.createGroup(alice, [bob]);
    await api.send(bob, friendCid(alice), 'bob private words');
    const toBob = await api.send(alice, friendCid(bob), 'to bob');
    await api.send(alice, groupCid(groupId), 'to group');
    // More than a page of messages in all.
    await api.sendMany(alice, groupCid(own), EXPORT_PAGE_SIZE, 'bulk');
    const report = await api.raw.reportUser(alice, {
      request_id: `rpt-${alice.userId}`,
      user_id: mallory.userId,
      reason_code: 1,
      description: 'spam',
    });
    expect(report.body.code).toBe(0);

    const first = await exportPage({ user_id: alice.userId });
    expect(first.user_id).toBe(alice.userId);
    expect(first.profile).toMatchObject({ user_id: alice.userId, disabled: false, created_at: expect.any(Number) });
    expect(first.friends).toEqual([{ user_id: bob.userId, since: expect.any(Number) }]);
    expect(first.blocks).toEqual([{ user_id: mallory.userId, since: expect.any(Number) }]);
    expect(first.groups).toEqual(
      expect.arrayContaining([
        { group_id: groupId, name: expect.any(String), role: 'member', joined_at: expect.any(Number) },
        { group_id: own, name: expect.any(String), role: 'owner', joined_at: expect.any(Number) },
      ]),
    );
    expect(first.groups).toHaveLength(2);
    expect(first.reports).toEqual([
      {
        target_type: 'user',
        target_id: mallory.userId,
        reason_code: 1,
        description: 'spam',
        conversation_id: '',
        message_ids: [],
        created_at: expect.any(Number),
      },
    ]);
    expect(first.messages).toHaveLength(EXPORT_PAGE_SIZE);
    expect(first.messages[0]).toMatchObject({
      mid: toBob.message.mid,
      conversation_id: friendCid(bob),
      sender_id: alice.userId,
      type: 'text',
      content: { text: 'to bob' },
    });
    expect(first.messages[1]).toMatchObject({ conversation_id: groupCid(groupId), content: { text: 'to group' } });
    expect(first.has_more).toBe(true);
    expect(first.next_cursor).toEqual(expect.any(String));

    const second = await exportPage({ user_id: alice.userId, cursor: first.next_cursor });
    expect(second).toMatchObject({ profile: null, friends: null, blocks: null, groups: null, reports: null });
    expect(second.messages).toHaveLength(2);
    expect(second.messages[1]).toMatchObject({
      conversation_id: groupCid(own),
      content: { text: `bulk ${EXPORT_PAGE_SIZE}` },
    });
    expect(second).toMatchObject({ has_more: false, next_cursor: null });

    // Every message is alice's own, each exactly once; bob's words are not in her export.
    const all = [...first.messages, ...second.messages];
    expect(new Set(all.map((m) => m.mid)).size).toBe(all.length);
    expect(all.every((m) => m.sender_id === alice.userId)).toBe(true);
    expect(JSON.stringify(all)).not.toContain('bob private words');

    // A cursor is bound to its user and cannot be altered.
    for (const body of [
      { user_id: bob.userId, cursor: first.next_cursor },
      { user_id: alice.userId, cursor: `${first.next_cursor}x` },
    ]) {
      const refused = await t.http
        .post('/app/server/users/export')
        .set(...hostAuth())
        .send(body);
      expect(refused.body.code).toBe(1004);
      expect(refused.body.msg).toContain('cursor');
    }
  });

  it('a user without data exports empty sections; unknown or erased users are 1204; bad input 1004; no secret 1001', async () => {
    const [quiet] = await api.users(1);
    const page = await exportPage({ user_id: quiet.userId });
    expect(page).toMatchObject({ friends: [], blocks: [], groups: [], reports: [], messages: [], has_more: false });

    const unknown = await t.http
      .post('/app/server/users/export')
      .set(...hostAuth())
      .send({ user_id: randomUserId() });
    expect(unknown.body.code).toBe(1204);
    const db = t.app.get(DataSource);
    const [{ id: quietId }] = (await db.query('SELECT id FROM users WHERE external_id = ?', [quiet.userId])) as Array<{
      id: string | number;
    }>;
    okData(
      await t.http
        .post('/app/server/users/erase')
        .set(...hostAuth())
        .send({ user_id: quiet.userId }),
    );
    const erased = await t.http
      .post('/app/server/users/export')
      .set(...hostAuth())
      .send({ user_id: quiet.userId });
    expect(erased.body.code).toBe(1204);
    // Nor through the anonymised row's tombstone ID.
    const [{ external_id: tombstone }] = (await db.query('SELECT external_id FROM users WHERE id = ?', [
      quietId,
    ])) as Array<{ external_id: string }>;
    expect(tombstone).toMatch(/^erased_/);
    const byTombstone = await t.http
      .post('/app/server/users/export')
      .set(...hostAuth())
      .send({ user_id: tombstone });
    expect(byTombstone.body.code).toBe(1204);

    for (const [body, field] of [
      [{}, 'user_id'],
      [{ user_id: ['a'] }, 'user_id'],
      [{ user_id: 'x', cursor: 5 }, 'cursor'],
      [{ user_id: 'x', cursor: '' }, 'cursor'],
    ] as Array<[Record<string, unknown>, string]>) {
      const response = await t.http
        .post('/app/server/users/export')
        .set(...hostAuth())
        .send(body);
      expect({ body, code: response.body.code }).toEqual({ body, code: 1004 });
      expect(response.body.msg).toContain(field);
    }
    expect((await t.http.post('/app/server/users/export').send({ user_id: quiet.userId })).body.code).toBe(1001);
  });
});
