// Export review: users/export content and cursors, and erase/export bad input.
import { ApiClient, friendCid } from '../helpers/api-client';
import { useReviewApp } from './review-kit';

jest.setTimeout(180_000);

describe('host integration review: erasure and export', () => {
  let api: ApiClient;
  const { server } = useReviewApp((app) => ({ api } = app));

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
});
