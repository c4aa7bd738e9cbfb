import { page, settle } from '../../../../test/sdk/store-fakes.js';
import { direct, group, useListStore } from '../../../../test/sdk/list-store-kit.js';
import { ImError } from '../errors.js';

describe('ConversationListStore', () => {
  const kit = useListStore();
  const { ids, loaded, directMessage, groupMessage } = kit;

  describe('loading', () => {
    it('loads the first page at recovery: loading, then the items, totals and hasMore', async () => {
      expect(kit.store.getSnapshot().status).toBe('idle');
      kit.deps.sdk('recover', { reasons: ['login'] });
      expect(kit.store.getSnapshot().status).toBe('loading');
      kit.deps.lists[0].answer(
        page([direct('a', { unread: 2 }), group('g', { unread: 1, muted: true })], { next_cursor: 'c1' }),
      );
      await settle();
      const snapshot = kit.store.getSnapshot();
      expect(snapshot).toMatchObject({ status: 'ready', hasMore: true, unread: { total: 3, total_unmuted: 2 } });
      expect(ids()).toEqual(['friend_a', 'group_g']);
      expect(snapshot.items[0].pending).toBeNull();
    });

    it('keeps the items and reports the error when a load fails', async () => {
      await loaded([direct('a')]);
      const failure = kit.store.load();
      kit.deps.lists[1].fail(new ImError('network', 0, 'offline'));
      await expect(failure).rejects.toThrow('offline');
      expect(kit.store.getSnapshot()).toMatchObject({ status: 'error', error: { kind: 'network' } });
      expect(ids()).toEqual(['friend_a']);
      const retry = kit.store.load();
      kit.deps.lists[2].answer(page([direct('a')]));
      await retry;
      expect(kit.store.getSnapshot()).toMatchObject({ status: 'ready', error: null });
    });

    it('replaces the list at recovery: a conversation gone from the first page goes (spec 4.7)', async () => {
      await loaded([direct('a'), direct('b')]);
      await loaded([direct('b', { unread: 4 })]);
      expect(ids()).toEqual(['friend_b']);
      expect(kit.store.getSnapshot().unread.total).toBe(4);
    });

    it('keeps the pages loaded after the first at a recovery after a resumed connection, not after one that did not resume', async () => {
      const ready = (resumed: boolean) =>
        kit.deps.sdk('connection.ready', { event_id: 'r', position: 'p', server_time: 0, resumed, replayed: 0 });
      await loaded([direct('a', { last_activity_at: 3_000 })], { next_cursor: 'c1' });
      const more = kit.store.loadMore();
      kit.deps.lists[1].answer(page([direct('b', { last_activity_at: 900 })]));
      await more;
      ready(true);
      await loaded([direct('a', { last_activity_at: 3_000 })], { next_cursor: 'c1' });
      expect(ids()).toEqual(['friend_a', 'friend_b']);
      expect(kit.store.getSnapshot().hasMore).toBe(false);
      ready(false);
      await loaded([direct('a', { last_activity_at: 3_000 })], { next_cursor: 'c1' });
      expect(ids()).toEqual(['friend_a']);
      expect(kit.store.getSnapshot().hasMore).toBe(true);
    });

    it('loads more pages on demand, keeping the copies it holds', async () => {
      await loaded([direct('a', { last_activity_at: 3_000 })], { next_cursor: 'c1' });
      directMessage('a', '4', 1, 'a', 6_000);
      const more = kit.store.loadMore();
      expect(kit.store.getSnapshot().loadingMore).toBe(true);
      expect(kit.deps.lists[1].cursor).toBe('c1');
      kit.deps.lists[1].answer(
        page([direct('a', { last_activity_at: 3_000 }), direct('b', { last_activity_at: 900 })]),
      );
      await more;
      expect(ids()).toEqual(['friend_a', 'friend_b']);
      expect(kit.store.get('friend_a')?.last_seq).toBe('4');
      expect(kit.store.getSnapshot()).toMatchObject({ hasMore: false, loadingMore: false });
      await kit.store.loadMore();
      expect(kit.deps.lists).toHaveLength(2);
    });

    it('applies the events that came while the first page was on its way on top of it (spec 4.7 rule 6)', async () => {
      await loaded([group('g', { last_seq: '3', unread: 0 })]);
      const reload = kit.store.load();
      groupMessage('g', '4');
      groupMessage('g', '5');
      // The page was read between the two messages.
      kit.deps.lists[1].answer(
        page([group('g', { last_seq: '4', read_seq: '3', unread: 1, last_activity_at: 5_000 })]),
      );
      await reload;
      expect(kit.store.get('group_g')).toMatchObject({ last_seq: '5', unread: 2 });
      expect(kit.store.getSnapshot().unread).toEqual({ total: 2, total_unmuted: 2 });
    });

    it('drops a reply that comes after a reset (logout)', async () => {
      kit.deps.sdk('recover', { reasons: ['login'] });
      kit.store.reset();
      kit.deps.lists[0].answer(page([direct('a')]));
      await settle();
      expect(kit.store.getSnapshot()).toMatchObject({ status: 'idle', items: [] });
    });
  });

  describe('settings', () => {
    it('puts pinned conversations first and back by activity when unpinned', async () => {
      await loaded([
        direct('a', { last_activity_at: 3_000 }),
        direct('b', { last_activity_at: 2_000 }),
        direct('c', { last_activity_at: 1_000 }),
      ]);
      kit.deps.event('conversation.updated', {
        conversation_id: 'friend_c',
        pinned: true,
        muted: false,
        hidden: false,
      });
      expect(ids()).toEqual(['friend_c', 'friend_a', 'friend_b']);
      directMessage('b', '4', 1, 'b', 9_000);
      expect(ids()).toEqual(['friend_c', 'friend_b', 'friend_a']);
      kit.deps.event('conversation.updated', {
        conversation_id: 'friend_c',
        pinned: false,
        muted: false,
        hidden: false,
      });
      expect(ids()).toEqual(['friend_b', 'friend_a', 'friend_c']);
    });

    it('moves a muted conversation out of the badge and back', async () => {
      await loaded([direct('a', { unread: 2 })]);
      kit.deps.event('conversation.updated', {
        conversation_id: 'friend_a',
        pinned: false,
        muted: true,
        hidden: false,
      });
      expect(kit.store.getSnapshot().unread).toEqual({ total: 2, total_unmuted: 0 });
      kit.deps.event('conversation.updated', {
        conversation_id: 'friend_a',
        pinned: false,
        muted: false,
        hidden: false,
      });
      expect(kit.store.getSnapshot().unread).toEqual({ total: 2, total_unmuted: 2 });
    });

    it('hides a conversation until its next message', async () => {
      await loaded([direct('a'), direct('b')]);
      kit.deps.event('conversation.updated', {
        conversation_id: 'friend_a',
        pinned: false,
        muted: false,
        hidden: true,
      });
      expect(ids()).toEqual(['friend_b']);
      directMessage('a', '4', 1, 'a', 9_000);
      expect(ids()).toEqual(['friend_a', 'friend_b']);
      expect(kit.store.get('friend_a')?.hidden).toBe(false);
    });

    it('reloads when a conversation it does not hold is shown again', async () => {
      await loaded([direct('a')]);
      kit.deps.event('conversation.updated', {
        conversation_id: 'friend_x',
        pinned: false,
        muted: false,
        hidden: false,
      });
      expect(kit.deps.lists).toHaveLength(2);
    });
  });

  it('publishes a new snapshot for a change and keeps unchanged parts', async () => {
    await loaded([direct('a'), direct('b', { last_activity_at: 500 })]);
    const seen: unknown[] = [];
    const off = kit.store.subscribe((s) => seen.push(s));
    const before = kit.store.getSnapshot();
    directMessage('b', '4', 1, 'b', 900);
    const after = kit.store.getSnapshot();
    expect(seen).toEqual([after]);
    expect(after).not.toBe(before);
    expect(after.items[0]).toBe(before.items[0]);
    off();
  });

  it('forgets everything at reset', async () => {
    await loaded([direct('a', { unread: 1 })]);
    kit.store.reset();
    expect(kit.store.getSnapshot()).toMatchObject({
      items: [],
      status: 'idle',
      unread: { total: 0, total_unmuted: 0 },
    });
    directMessage('a', '9', 3);
    expect(kit.store.getSnapshot().items).toEqual([]);
  });
});
