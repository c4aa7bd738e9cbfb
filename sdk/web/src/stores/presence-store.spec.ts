import { FakeStoreDeps, friendPage, settle } from '../../../../test/sdk/store-fakes.js';
import { PresenceStore } from './presence-store.js';

describe('PresenceStore', () => {
  let deps: FakeStoreDeps;
  let store: PresenceStore;

  beforeEach(() => {
    deps = new FakeStoreDeps();
    store = new PresenceStore(deps);
  });

  const presence = (userId: string, online: boolean, lastSeenAt: number | null) =>
    deps.event('presence.changed', { user_id: userId, online, last_seen_at: lastSeenAt });
  const answer = (index: number, items: Array<[string, boolean, number | null]>) =>
    deps.presenceQueries[index].answer({
      items: items.map(([user_id, online, last_seen_at]) => ({ user_id, online, last_seen_at })),
    });

  it("follows friends' presence changes; unknown until told", () => {
    expect(store.get('a')).toBeUndefined();
    expect(store.isOnline('a')).toBe(false);
    presence('a', true, null);
    expect(store.get('a')).toEqual({ online: true, last_seen_at: null });
    expect(store.isOnline('a')).toBe(true);
    presence('a', false, 1234);
    expect(store.get('a')).toEqual({ online: false, last_seen_at: 1234 });
    expect(store.isOnline('a')).toBe(false);
  });

  it('reads the friend list (every page) and their presence at recovery', async () => {
    deps.sdk('recover', { reasons: ['login'] });
    deps.friendPages[0].answer(friendPage(['a', 'b'], 'next'));
    await settle();
    expect(deps.friendPages[1].cursor).toBe('next');
    deps.friendPages[1].answer(friendPage(['c']));
    await settle();
    expect(deps.presenceQueries.map((q) => q.userIds)).toEqual([['a', 'b', 'c']]);
    answer(0, [
      ['a', true, null],
      ['b', false, 99],
      ['c', false, null],
    ]);
    await settle();
    expect([...store.getSnapshot()]).toEqual([
      ['a', { online: true, last_seen_at: null }],
      ['b', { online: false, last_seen_at: 99 }],
      ['c', { online: false, last_seen_at: null }],
    ]);
  });

  it('asks at most 100 users a query', async () => {
    const many = Array.from({ length: 130 }, (_, i) => `f${i}`);
    const refreshed = store.refresh();
    deps.friendPages[0].answer(friendPage(many));
    await settle();
    answer(0, []);
    await settle();
    answer(1, []);
    await refreshed;
    expect(deps.presenceQueries.map((q) => q.userIds.length)).toEqual([100, 30]);
  });

  it('lets a change heard while the read is on its way win over the read', async () => {
    const refreshed = store.refresh();
    deps.friendPages[0].answer(friendPage(['a']));
    await settle();
    presence('a', false, 500);
    answer(0, [['a', true, null]]);
    await refreshed;
    expect(store.get('a')).toEqual({ online: false, last_seen_at: 500 });
  });

  it('forgets users absent from the friend list at the next read, and at friend.deleted', async () => {
    presence('a', true, null);
    presence('b', true, null);
    presence('c', true, null);
    deps.event('friend.deleted', { user_ids: ['me', 'a'], by: 'me', user_id: 'a', conversation_id: 'friend_a' });
    expect(store.get('a')).toBeUndefined();
    const refreshed = store.refresh();
    deps.friendPages[0].answer(friendPage(['c']));
    await settle();
    answer(0, [['c', true, null]]);
    await refreshed;
    expect([...store.getSnapshot().keys()]).toEqual(['c']);
  });

  it('reads a new friend at once', async () => {
    deps.event('friend.added', {
      user_ids: ['me', 'n'],
      request_ids: ['1'],
      since: 1,
      friend: friendPage(['n']).items[0],
    });
    expect(deps.presenceQueries[0].userIds).toEqual(['n']);
    answer(0, [['n', true, null]]);
    await settle();
    expect(store.isOnline('n')).toBe(true);
  });

  it('keeps the snapshot for a repeated state', () => {
    presence('a', true, null);
    const before = store.getSnapshot();
    presence('a', true, null);
    expect(store.getSnapshot()).toBe(before);
  });

  it('ignores the user themself, forgets everything at reset and drops a read still on its way', async () => {
    presence('me', true, null);
    expect(store.getSnapshot().size).toBe(0);
    presence('a', true, null);
    const refreshed = store.refresh();
    store.reset();
    expect(store.getSnapshot().size).toBe(0);
    deps.friendPages[0].answer(friendPage(['b']));
    await refreshed;
    expect(store.getSnapshot().size).toBe(0);
    expect(deps.presenceQueries).toHaveLength(0);
  });
});
