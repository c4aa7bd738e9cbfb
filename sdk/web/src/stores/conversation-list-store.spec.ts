import type { ConversationItem } from '../../../../src/contract/index.js';
import { FakeStoreDeps, item, local, message, page, settle } from '../../../../test/sdk/store-fakes.js';
import { ImError } from '../errors.js';
import { ConversationListStore } from './conversation-list-store.js';

const group = (id: string, fields: Partial<ConversationItem> = {}) => item(`group_${id}`, fields);
const direct = (peer: string, fields: Partial<ConversationItem> = {}) => item(`friend_${peer}`, fields);
const groupSummary = (id: string, name: string) => ({
  group_id: id,
  conversation_id: `group_${id}`,
  name,
  avatar: `https://avatar.test/${name}.png`,
  introduction: '',
  owner_user_id: 'owner',
  member_count: 3,
  created_at: 1,
  updated_at: 2,
  dismissed: false,
});

describe('ConversationListStore', () => {
  let deps: FakeStoreDeps;
  let store: ConversationListStore;

  beforeEach(() => {
    deps = new FakeStoreDeps();
    store = new ConversationListStore(deps);
  });

  const ids = () => store.getSnapshot().items.map((i) => i.conversation_id);

  /** Recovery with this first page answered. */
  async function loaded(items: ConversationItem[], options: Parameters<typeof page>[1] = {}): Promise<void> {
    deps.sdk('recover', { reasons: ['login'] });
    deps.lists[deps.lists.length - 1].answer(page(items, options));
    await settle();
  }

  /** A group message of `sender` at `seq`. */
  const groupMessage = (id: string, seq: string, sender = 'someone', at = 5_000) =>
    deps.event('message.new', {
      conversation_id: `group_${id}`,
      unread: null,
      by: sender,
      message: message({
        conversation_id: `group_${id}`,
        conversation_seq: seq,
        sender_id: sender,
        created_at: at,
        updated_at: at,
      }),
    });

  /** A one-to-one message from (or to) `peer` at `seq`, with the recipient's exact unread. */
  const directMessage = (peer: string, seq: string, unread: number, sender = peer, at = 5_000) =>
    deps.event('message.new', {
      conversation_id: `friend_${peer}`,
      unread,
      by: sender,
      message: message({ conversation_seq: seq, sender_id: sender, created_at: at, updated_at: at }),
    });

  describe('loading', () => {
    it('loads the first page at recovery: loading, then the items, totals and hasMore', async () => {
      expect(store.getSnapshot().status).toBe('idle');
      deps.sdk('recover', { reasons: ['login'] });
      expect(store.getSnapshot().status).toBe('loading');
      deps.lists[0].answer(
        page([direct('a', { unread: 2 }), group('g', { unread: 1, muted: true })], { next_cursor: 'c1' }),
      );
      await settle();
      const snapshot = store.getSnapshot();
      expect(snapshot).toMatchObject({ status: 'ready', hasMore: true, unread: { total: 3, total_unmuted: 2 } });
      expect(ids()).toEqual(['friend_a', 'group_g']);
      expect(snapshot.items[0].pending).toBeNull();
    });

    it('keeps the items and reports the error when a load fails', async () => {
      await loaded([direct('a')]);
      const failure = store.load();
      deps.lists[1].fail(new ImError('network', 0, 'offline'));
      await expect(failure).rejects.toThrow('offline');
      expect(store.getSnapshot()).toMatchObject({ status: 'error', error: { kind: 'network' } });
      expect(ids()).toEqual(['friend_a']);
      const retry = store.load();
      deps.lists[2].answer(page([direct('a')]));
      await retry;
      expect(store.getSnapshot()).toMatchObject({ status: 'ready', error: null });
    });

    it('replaces the list at recovery: a conversation gone from the first page goes (spec 4.7)', async () => {
      await loaded([direct('a'), direct('b')]);
      await loaded([direct('b', { unread: 4 })]);
      expect(ids()).toEqual(['friend_b']);
      expect(store.getSnapshot().unread.total).toBe(4);
    });

    it('keeps the pages loaded after the first at a recovery after a resumed connection, not after one that did not resume', async () => {
      const ready = (resumed: boolean) =>
        deps.sdk('connection.ready', { event_id: 'r', position: 'p', server_time: 0, resumed, replayed: 0 });
      await loaded([direct('a', { last_activity_at: 3_000 })], { next_cursor: 'c1' });
      const more = store.loadMore();
      deps.lists[1].answer(page([direct('b', { last_activity_at: 900 })]));
      await more;
      ready(true);
      await loaded([direct('a', { last_activity_at: 3_000 })], { next_cursor: 'c1' });
      expect(ids()).toEqual(['friend_a', 'friend_b']);
      expect(store.getSnapshot().hasMore).toBe(false);
      ready(false);
      await loaded([direct('a', { last_activity_at: 3_000 })], { next_cursor: 'c1' });
      expect(ids()).toEqual(['friend_a']);
      expect(store.getSnapshot().hasMore).toBe(true);
    });

    it('loads more pages on demand, keeping the copies it holds', async () => {
      await loaded([direct('a', { last_activity_at: 3_000 })], { next_cursor: 'c1' });
      directMessage('a', '4', 1, 'a', 6_000);
      const more = store.loadMore();
      expect(store.getSnapshot().loadingMore).toBe(true);
      expect(deps.lists[1].cursor).toBe('c1');
      deps.lists[1].answer(page([direct('a', { last_activity_at: 3_000 }), direct('b', { last_activity_at: 900 })]));
      await more;
      expect(ids()).toEqual(['friend_a', 'friend_b']);
      expect(store.get('friend_a')?.last_seq).toBe('4');
      expect(store.getSnapshot()).toMatchObject({ hasMore: false, loadingMore: false });
      await store.loadMore();
      expect(deps.lists).toHaveLength(2);
    });

    it('applies the events that came while the first page was on its way on top of it (spec 4.7 rule 6)', async () => {
      await loaded([group('g', { last_seq: '3', unread: 0 })]);
      const reload = store.load();
      groupMessage('g', '4');
      groupMessage('g', '5');
      // The page was read between the two messages.
      deps.lists[1].answer(page([group('g', { last_seq: '4', read_seq: '3', unread: 1, last_activity_at: 5_000 })]));
      await reload;
      expect(store.get('group_g')).toMatchObject({ last_seq: '5', unread: 2 });
      expect(store.getSnapshot().unread).toEqual({ total: 2, total_unmuted: 2 });
    });

    it('drops a reply that comes after a reset (logout)', async () => {
      deps.sdk('recover', { reasons: ['login'] });
      store.reset();
      deps.lists[0].answer(page([direct('a')]));
      await settle();
      expect(store.getSnapshot()).toMatchObject({ status: 'idle', items: [] });
    });
  });

  describe('messages', () => {
    it('moves a conversation up with its new last message and the exact one-to-one unread', async () => {
      await loaded([direct('a', { last_activity_at: 3_000 }), direct('b', { last_activity_at: 2_000 })]);
      directMessage('b', '4', 1, 'b', 6_000);
      expect(ids()).toEqual(['friend_b', 'friend_a']);
      expect(store.get('friend_b')).toMatchObject({ last_seq: '4', unread: 1, last_activity_at: 6_000 });
      expect(store.get('friend_b')?.last_message).toMatchObject({ mid: 'm4', conversation_id: 'friend_b' });
      expect(store.getSnapshot().unread).toEqual({ total: 1, total_unmuted: 1 });
    });

    it('counts a group message of someone else, not one of the user, and leaves muted ones out of the badge', async () => {
      await loaded([group('g'), group('h', { muted: true })]);
      groupMessage('g', '4');
      groupMessage('g', '5', 'me');
      groupMessage('h', '4');
      expect(store.get('group_g')).toMatchObject({ unread: 1, last_seq: '5' });
      expect(store.get('group_h')?.unread).toBe(1);
      expect(store.getSnapshot().unread).toEqual({ total: 2, total_unmuted: 1 });
    });

    it('changes nothing for a duplicate or an older message (same snapshot)', async () => {
      await loaded([group('g')]);
      const event = groupMessage('g', '4');
      const before = store.getSnapshot();
      deps.emitter.emit('message.new', event);
      groupMessage('g', '2');
      expect(store.getSnapshot()).toBe(before);
      expect(store.get('group_g')?.unread).toBe(1);
    });

    it('keeps a read that arrived before its message: the older unread does not win', async () => {
      await loaded([direct('a', { last_seq: '4', read_seq: '4' })]);
      deps.event('conversation.read', { conversation_id: 'friend_a', read_seq: '5', unread: 0 });
      directMessage('a', '5', 1);
      expect(store.get('friend_a')).toMatchObject({ last_seq: '5', read_seq: '5', unread: 0 });
      expect(store.getSnapshot().unread.total).toBe(0);
    });

    it('takes a read from another device, and ignores an older one', async () => {
      await loaded([direct('a', { last_seq: '6', read_seq: '2', unread: 4 })]);
      deps.event('conversation.read', { conversation_id: 'friend_a', read_seq: '5', unread: 1 });
      deps.event('conversation.read', { conversation_id: 'friend_a', read_seq: '3', unread: 3 });
      expect(store.get('friend_a')).toMatchObject({ read_seq: '5', unread: 1 });
      expect(store.getSnapshot().unread).toEqual({ total: 1, total_unmuted: 1 });
    });

    it('shows a recall of the last message as its tombstone and stops counting it', async () => {
      await loaded([group('g', { last_seq: '3', read_seq: '2', unread: 1, updated_at: 1_003 })]);
      const recalled = { ...store.get('group_g')!.last_message!, status: 'recalled' as const, content: null };
      deps.event('message.recalled', {
        conversation_id: 'group_g',
        unread: null,
        by: 'someone',
        message: { ...recalled, updated_at: 2_000 },
        updated_at: 2_000,
      } as never);
      expect(store.get('group_g')).toMatchObject({ unread: 0, updated_at: 2_000 });
      expect(store.get('group_g')?.last_message).toMatchObject({ status: 'recalled', content: null });
      expect(store.getSnapshot().unread.total).toBe(0);
      // The same recall again (or one the page already had) changes nothing.
      const before = store.getSnapshot();
      deps.event('message.recalled', {
        conversation_id: 'group_g',
        unread: null,
        by: 'someone',
        message: { ...recalled, updated_at: 2_000 },
        updated_at: 2_000,
      } as never);
      expect(store.getSnapshot()).toBe(before);
    });

    it('takes the exact one-to-one unread of a recall that is not the last message', async () => {
      await loaded([direct('a', { last_seq: '5', read_seq: '2', unread: 3 })]);
      deps.event('message.recalled', {
        conversation_id: 'friend_a',
        unread: 2,
        by: 'a',
        message: message({
          conversation_seq: '4',
          sender_id: 'a',
          status: 'recalled',
          content: null,
          updated_at: 9_000,
        }),
      });
      expect(store.get('friend_a')).toMatchObject({ unread: 2 });
      expect(store.get('friend_a')?.last_message?.mid).toBe('friend_a-m5');
    });

    it('asks unread when a group delete may hit a message recalled before', async () => {
      await loaded([group('g', { last_seq: '5', read_seq: '2', unread: 2 }), group('h', { unread: 1 })]);
      deps.event('message.deleted', {
        conversation_id: 'group_g',
        unread: null,
        by: 'someone',
        message: message({
          conversation_seq: '4',
          sender_id: 'someone',
          status: 'deleted',
          content: null,
          updated_at: 9_000,
        }),
      });
      expect(deps.unreads).toHaveLength(1);
      deps.unreads[0].answer({
        total: 1,
        total_unmuted: 1,
        conversations: [{ conversation_id: 'group_g', unread: 1, muted: false }],
        has_more: false,
      });
      await settle();
      expect(store.get('group_g')?.unread).toBe(1);
      expect(store.get('group_h')?.unread).toBe(0);
      expect(store.getSnapshot().unread).toEqual({ total: 1, total_unmuted: 1 });
    });

    it('asks unread again when an event moved unread while the answer was on its way', async () => {
      await loaded([direct('a')]);
      deps.event('conversation.read', { conversation_id: 'friend_elsewhere', read_seq: '9', unread: 0 });
      directMessage('a', '4', 1);
      deps.unreads[0].answer({ total: 0, total_unmuted: 0, conversations: [], has_more: false });
      await settle();
      expect(deps.unreads).toHaveLength(2);
      deps.unreads[1].answer({
        total: 1,
        total_unmuted: 1,
        conversations: [{ conversation_id: 'friend_a', unread: 1, muted: false }],
        has_more: false,
      });
      await settle();
      expect(store.getSnapshot().unread.total).toBe(1);
    });

    it('reloads the first page for a message in a conversation it does not hold, and merges it', async () => {
      await loaded([direct('a', { last_activity_at: 3_000 })]);
      directMessage('new', '1', 1, 'new', 6_000);
      expect(deps.lists).toHaveLength(2);
      deps.lists[1].answer(
        page([direct('new', { unread: 1, last_activity_at: 6_000 }), direct('a', { last_activity_at: 3_000 })]),
      );
      await settle();
      expect(ids()).toEqual(['friend_new', 'friend_a']);
      expect(store.getSnapshot().unread.total).toBe(1);
    });

    it('shows the local echo as the preview until the stored message comes', async () => {
      await loaded([direct('a')]);
      deps.sdk('message.pending', local('friend_a', 'c-mine'));
      expect(store.get('friend_a')?.pending).toMatchObject({ client_message_id: 'c-mine', status: 'sending' });
      const failed = { ...local('friend_a', 'c-mine'), status: 'failed' as const };
      deps.sdk('message.failed', failed);
      expect(store.get('friend_a')?.pending?.status).toBe('failed');
      deps.sdk('message.pending', local('friend_a', 'c-mine'));
      directMessage('a', '4', 0, 'me');
      // The sender's event: its client_message_id is the echo's.
      deps.event('message.new', {
        conversation_id: 'friend_a',
        unread: 0,
        by: 'me',
        message: message({ conversation_seq: '5', sender_id: 'me', client_message_id: 'c-mine' }),
      });
      expect(store.get('friend_a')?.pending).toBeNull();
      expect(store.get('friend_a')?.last_message?.client_message_id).toBe('c-mine');
    });
  });

  describe('settings', () => {
    it('puts pinned conversations first and back by activity when unpinned', async () => {
      await loaded([
        direct('a', { last_activity_at: 3_000 }),
        direct('b', { last_activity_at: 2_000 }),
        direct('c', { last_activity_at: 1_000 }),
      ]);
      deps.event('conversation.updated', { conversation_id: 'friend_c', pinned: true, muted: false, hidden: false });
      expect(ids()).toEqual(['friend_c', 'friend_a', 'friend_b']);
      directMessage('b', '4', 1, 'b', 9_000);
      expect(ids()).toEqual(['friend_c', 'friend_b', 'friend_a']);
      deps.event('conversation.updated', { conversation_id: 'friend_c', pinned: false, muted: false, hidden: false });
      expect(ids()).toEqual(['friend_b', 'friend_a', 'friend_c']);
    });

    it('moves a muted conversation out of the badge and back', async () => {
      await loaded([direct('a', { unread: 2 })]);
      deps.event('conversation.updated', { conversation_id: 'friend_a', pinned: false, muted: true, hidden: false });
      expect(store.getSnapshot().unread).toEqual({ total: 2, total_unmuted: 0 });
      deps.event('conversation.updated', { conversation_id: 'friend_a', pinned: false, muted: false, hidden: false });
      expect(store.getSnapshot().unread).toEqual({ total: 2, total_unmuted: 2 });
    });

    it('hides a conversation until its next message', async () => {
      await loaded([direct('a'), direct('b')]);
      deps.event('conversation.updated', { conversation_id: 'friend_a', pinned: false, muted: false, hidden: true });
      expect(ids()).toEqual(['friend_b']);
      directMessage('a', '4', 1, 'a', 9_000);
      expect(ids()).toEqual(['friend_a', 'friend_b']);
      expect(store.get('friend_a')?.hidden).toBe(false);
    });

    it('reloads when a conversation it does not hold is shown again', async () => {
      await loaded([direct('a')]);
      deps.event('conversation.updated', { conversation_id: 'friend_x', pinned: false, muted: false, hidden: false });
      expect(deps.lists).toHaveLength(2);
    });
  });

  describe('groups, friends and profiles', () => {
    it('follows a group rename and avatar', async () => {
      await loaded([group('g')]);
      deps.event('group.updated', {
        group_id: 'g',
        conversation_id: 'group_g',
        operator_user_id: 'owner',
        group: groupSummary('g', 'Renamed'),
        changed_fields: ['name'],
      });
      expect(store.get('group_g')).toMatchObject({ title: 'Renamed', avatar: 'https://avatar.test/Renamed.png' });
    });

    it.each([
      ['removed', 'group.members_removed', { user_ids: ['me'] }],
      ['left', 'group.member_left', { user_id: 'me' }],
      ['dismissed', 'group.dismissed', { dismissed_at: 5 }],
    ] as const)(
      'makes the user a former member when %s, keeping the last message and unread of that time',
      async (_n, type, fields) => {
        await loaded([group('g', { unread: 1 })]);
        deps.event(type, {
          group_id: 'g',
          conversation_id: 'group_g',
          operator_user_id: 'owner',
          group: groupSummary('g', 'G'),
          ...fields,
        } as never);
        expect(store.get('group_g')).toMatchObject({
          is_member: false,
          last_message: { mid: 'group_g-m3' },
          unread: 1,
        });
        expect(ids()).toEqual(['group_g']);
      },
    );

    it('leaves the list alone when another member is removed', async () => {
      await loaded([group('g')]);
      deps.event('group.members_removed', {
        group_id: 'g',
        conversation_id: 'group_g',
        operator_user_id: 'owner',
        group: groupSummary('g', 'title of group_g'),
        user_ids: ['other'],
      });
      expect(store.get('group_g')?.is_member).toBe(true);
    });

    it('reloads for a new group, a rejoined one and a new friend', async () => {
      await loaded([group('old', { is_member: false, last_message: null })]);
      deps.event('group.created', {
        group_id: 'g',
        conversation_id: 'group_g',
        operator_user_id: 'owner',
        group: groupSummary('g', 'G'),
        member_user_ids: ['me'],
      });
      expect(deps.lists).toHaveLength(2);
      deps.lists[1].answer(page([group('g'), group('old', { is_member: false, last_message: null })]));
      await settle();
      deps.event('group.members_added', {
        group_id: 'old',
        conversation_id: 'group_old',
        operator_user_id: 'owner',
        group: groupSummary('old', 'Old'),
        user_ids: ['me'],
      });
      expect(deps.lists).toHaveLength(3);
      deps.lists[2].answer(page([group('g'), group('old')]));
      await settle();
      deps.event('friend.added', {
        user_ids: ['me', 'f'],
        request_ids: ['1'],
        since: 1,
        friend: {
          conversation_id: 'friend_f',
          since: 1,
          user: {
            id: '9',
            user_id: 'f',
            username: '',
            nickname: 'F',
            avatar: '',
            signature: '',
            profile_updated_at: 0,
          },
        },
      });
      expect(deps.lists).toHaveLength(4);
    });

    it('keeps the one-to-one conversation when the friend is deleted or blocked (as sync does)', async () => {
      await loaded([direct('a')]);
      const before = store.getSnapshot();
      deps.event('friend.deleted', { user_ids: ['me', 'a'], by: 'a', user_id: 'a', conversation_id: 'friend_a' });
      expect(store.getSnapshot()).toBe(before);
    });

    it("follows a peer's new name and avatar", async () => {
      await loaded([direct('a'), direct('b')]);
      deps.event('user.profile_updated', {
        user: {
          id: '1',
          user_id: 'a',
          username: '',
          nickname: 'Alice',
          avatar: 'https://avatar.test/alice.png',
          signature: '',
          profile_updated_at: 1,
        },
      });
      expect(store.get('friend_a')).toMatchObject({ title: 'Alice', avatar: 'https://avatar.test/alice.png' });
      expect(store.get('friend_b')?.title).toBe('title of friend_b');
    });
  });

  it('publishes a new snapshot for a change and keeps unchanged parts', async () => {
    await loaded([direct('a'), direct('b', { last_activity_at: 500 })]);
    const seen: unknown[] = [];
    const off = store.subscribe((s) => seen.push(s));
    const before = store.getSnapshot();
    directMessage('b', '4', 1, 'b', 900);
    const after = store.getSnapshot();
    expect(seen).toEqual([after]);
    expect(after).not.toBe(before);
    expect(after.items[0]).toBe(before.items[0]);
    off();
  });

  it('forgets everything at reset', async () => {
    await loaded([direct('a', { unread: 1 })]);
    store.reset();
    expect(store.getSnapshot()).toMatchObject({ items: [], status: 'idle', unread: { total: 0, total_unmuted: 0 } });
    directMessage('a', '9', 3);
    expect(store.getSnapshot().items).toEqual([]);
  });
});
