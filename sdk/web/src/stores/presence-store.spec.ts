import { FakeStoreDeps } from '../../../../test/sdk/store-fakes.js';
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

  it('keeps the snapshot for a repeated state', () => {
    presence('a', true, null);
    const before = store.getSnapshot();
    presence('a', true, null);
    expect(store.getSnapshot()).toBe(before);
  });

  it('forgets a user who stops being a friend', () => {
    presence('a', true, null);
    presence('b', true, null);
    deps.event('friend.deleted', { user_ids: ['me', 'a'], by: 'me', user_id: 'a', conversation_id: 'friend_a' });
    expect(store.get('a')).toBeUndefined();
    expect([...store.getSnapshot().keys()]).toEqual(['b']);
  });

  it('ignores the user themself and forgets everything at reset', () => {
    presence('me', true, null);
    expect(store.getSnapshot().size).toBe(0);
    presence('a', true, null);
    store.reset();
    expect(store.getSnapshot().size).toBe(0);
  });
});
