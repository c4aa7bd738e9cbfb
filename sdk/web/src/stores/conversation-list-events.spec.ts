import { local, message, page, settle } from '../../../../test/sdk/store-fakes.js';
import { direct, group, groupSummary, useListStore } from '../../../../test/sdk/list-store-kit.js';

describe('ConversationListStore: events', () => {
  const kit = useListStore();
  const { ids, loaded, directMessage, groupMessage } = kit;

  describe('messages', () => {
    it('moves a conversation up with its new last message and the exact one-to-one unread', async () => {
      await loaded([direct('a', { last_activity_at: 3_000 }), direct('b', { last_activity_at: 2_000 })]);
      directMessage('b', '4', 1, 'b', 6_000);
      expect(ids()).toEqual(['friend_b', 'friend_a']);
      expect(kit.store.get('friend_b')).toMatchObject({ last_seq: '4', unread: 1, last_activity_at: 6_000 });
      expect(kit.store.get('friend_b')?.last_message).toMatchObject({ mid: 'm4', conversation_id: 'friend_b' });
      expect(kit.store.getSnapshot().unread).toEqual({ total: 1, total_unmuted: 1 });
    });

    it('counts a group message of someone else, not one of the user, and leaves muted ones out of the badge', async () => {
      await loaded([group('g'), group('h', { muted: true })]);
      groupMessage('g', '4');
      groupMessage('g', '5', 'me');
      groupMessage('h', '4');
      expect(kit.store.get('group_g')).toMatchObject({ unread: 1, last_seq: '5' });
      expect(kit.store.get('group_h')?.unread).toBe(1);
      expect(kit.store.getSnapshot().unread).toEqual({ total: 2, total_unmuted: 1 });
    });

    it('changes nothing for a duplicate or an older message (same snapshot)', async () => {
      await loaded([group('g')]);
      const event = groupMessage('g', '4');
      const before = kit.store.getSnapshot();
      kit.deps.emitter.emit('message.new', event);
      groupMessage('g', '2');
      expect(kit.store.getSnapshot()).toBe(before);
      expect(kit.store.get('group_g')?.unread).toBe(1);
    });

    it('keeps a read that arrived before its message: the older unread does not win', async () => {
      await loaded([direct('a', { last_seq: '4', read_seq: '4' })]);
      kit.deps.event('conversation.read', { conversation_id: 'friend_a', read_seq: '5', unread: 0 });
      directMessage('a', '5', 1);
      expect(kit.store.get('friend_a')).toMatchObject({ last_seq: '5', read_seq: '5', unread: 0 });
      expect(kit.store.getSnapshot().unread.total).toBe(0);
    });

    it('takes a read from another device, and ignores an older one', async () => {
      await loaded([direct('a', { last_seq: '6', read_seq: '2', unread: 4 })]);
      kit.deps.event('conversation.read', { conversation_id: 'friend_a', read_seq: '5', unread: 1 });
      kit.deps.event('conversation.read', { conversation_id: 'friend_a', read_seq: '3', unread: 3 });
      expect(kit.store.get('friend_a')).toMatchObject({ read_seq: '5', unread: 1 });
      expect(kit.store.getSnapshot().unread).toEqual({ total: 1, total_unmuted: 1 });
    });

    it('shows a recall of the last message as its tombstone and stops counting it', async () => {
      await loaded([group('g', { last_seq: '3', read_seq: '2', unread: 1, updated_at: 1_003 })]);
      const recalled = { ...kit.store.get('group_g')!.last_message!, status: 'recalled' as const, content: null };
      kit.deps.event('message.recalled', {
        conversation_id: 'group_g',
        unread: null,
        by: 'someone',
        message: { ...recalled, updated_at: 2_000 },
        updated_at: 2_000,
      } as never);
      expect(kit.store.get('group_g')).toMatchObject({ unread: 0, updated_at: 2_000 });
      expect(kit.store.get('group_g')?.last_message).toMatchObject({ status: 'recalled', content: null });
      expect(kit.store.getSnapshot().unread.total).toBe(0);
      // The same recall again (or one the page already had) changes nothing.
      const before = kit.store.getSnapshot();
      kit.deps.event('message.recalled', {
        conversation_id: 'group_g',
        unread: null,
        by: 'someone',
        message: { ...recalled, updated_at: 2_000 },
        updated_at: 2_000,
      } as never);
      expect(kit.store.getSnapshot()).toBe(before);
    });

    it('takes the exact one-to-one unread of a recall that is not the last message', async () => {
      await loaded([direct('a', { last_seq: '5', read_seq: '2', unread: 3 })]);
      kit.deps.event('message.recalled', {
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
      expect(kit.store.get('friend_a')).toMatchObject({ unread: 2 });
      expect(kit.store.get('friend_a')?.last_message?.mid).toBe('friend_a-m5');
    });

    it('asks unread when a group delete may hit a message recalled before', async () => {
      await loaded([group('g', { last_seq: '5', read_seq: '2', unread: 2 }), group('h', { unread: 1 })]);
      kit.deps.event('message.deleted', {
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
      expect(kit.deps.unreads).toHaveLength(1);
      kit.deps.unreads[0].answer({
        total: 1,
        total_unmuted: 1,
        conversations: [{ conversation_id: 'group_g', unread: 1, muted: false }],
        has_more: false,
      });
      await settle();
      expect(kit.store.get('group_g')?.unread).toBe(1);
      expect(kit.store.get('group_h')?.unread).toBe(0);
      expect(kit.store.getSnapshot().unread).toEqual({ total: 1, total_unmuted: 1 });
    });

    it('asks unread again when an event moved unread while the answer was on its way', async () => {
      await loaded([direct('a')]);
      kit.deps.event('conversation.read', { conversation_id: 'friend_elsewhere', read_seq: '9', unread: 0 });
      directMessage('a', '4', 1);
      kit.deps.unreads[0].answer({ total: 0, total_unmuted: 0, conversations: [], has_more: false });
      await settle();
      expect(kit.deps.unreads).toHaveLength(2);
      kit.deps.unreads[1].answer({
        total: 1,
        total_unmuted: 1,
        conversations: [{ conversation_id: 'friend_a', unread: 1, muted: false }],
        has_more: false,
      });
      await settle();
      expect(kit.store.getSnapshot().unread.total).toBe(1);
    });

    it('reloads the first page for a message in a conversation it does not hold, and merges it', async () => {
      await loaded([direct('a', { last_activity_at: 3_000 })]);
      directMessage('new', '1', 1, 'new', 6_000);
      expect(kit.deps.lists).toHaveLength(2);
      kit.deps.lists[1].answer(
        page([direct('new', { unread: 1, last_activity_at: 6_000 }), direct('a', { last_activity_at: 3_000 })]),
      );
      await settle();
      expect(ids()).toEqual(['friend_new', 'friend_a']);
      expect(kit.store.getSnapshot().unread.total).toBe(1);
    });

    it('shows the local echo as the preview until the stored message comes', async () => {
      await loaded([direct('a')]);
      kit.deps.sdk('message.pending', local('friend_a', 'c-mine'));
      expect(kit.store.get('friend_a')?.pending).toMatchObject({ client_message_id: 'c-mine', status: 'sending' });
      const failed = { ...local('friend_a', 'c-mine'), status: 'failed' as const };
      kit.deps.sdk('message.failed', failed);
      expect(kit.store.get('friend_a')?.pending?.status).toBe('failed');
      kit.deps.sdk('message.pending', local('friend_a', 'c-mine'));
      directMessage('a', '4', 0, 'me');
      // The sender's event: its client_message_id is the echo's.
      kit.deps.event('message.new', {
        conversation_id: 'friend_a',
        unread: 0,
        by: 'me',
        message: message({ conversation_seq: '5', sender_id: 'me', client_message_id: 'c-mine' }),
      });
      expect(kit.store.get('friend_a')?.pending).toBeNull();
      expect(kit.store.get('friend_a')?.last_message?.client_message_id).toBe('c-mine');
    });
  });

  describe('groups, friends and profiles', () => {
    it('follows a group rename and avatar', async () => {
      await loaded([group('g')]);
      kit.deps.event('group.updated', {
        group_id: 'g',
        conversation_id: 'group_g',
        operator_user_id: 'owner',
        group: groupSummary('g', 'Renamed'),
        changed_fields: ['name'],
      });
      expect(kit.store.get('group_g')).toMatchObject({ title: 'Renamed', avatar: 'https://avatar.test/Renamed.png' });
    });

    it.each([
      ['removed', 'group.members_removed', { user_ids: ['me'] }],
      ['left', 'group.member_left', { user_id: 'me' }],
      ['dismissed', 'group.dismissed', { dismissed_at: 5 }],
    ] as const)(
      'makes the user a former member when %s, keeping the last message and unread of that time',
      async (_n, type, fields) => {
        await loaded([group('g', { unread: 1 })]);
        kit.deps.event(type, {
          group_id: 'g',
          conversation_id: 'group_g',
          operator_user_id: 'owner',
          group: groupSummary('g', 'G'),
          ...fields,
        } as never);
        expect(kit.store.get('group_g')).toMatchObject({
          is_member: false,
          last_message: { mid: 'group_g-m3' },
          unread: 1,
        });
        expect(ids()).toEqual(['group_g']);
      },
    );

    it('leaves the list alone when another member is removed', async () => {
      await loaded([group('g')]);
      kit.deps.event('group.members_removed', {
        group_id: 'g',
        conversation_id: 'group_g',
        operator_user_id: 'owner',
        group: groupSummary('g', 'title of group_g'),
        user_ids: ['other'],
      });
      expect(kit.store.get('group_g')?.is_member).toBe(true);
    });

    it('reloads for a new group, a rejoined one and a new friend', async () => {
      await loaded([group('old', { is_member: false, last_message: null })]);
      kit.deps.event('group.created', {
        group_id: 'g',
        conversation_id: 'group_g',
        operator_user_id: 'owner',
        group: groupSummary('g', 'G'),
        member_user_ids: ['me'],
      });
      expect(kit.deps.lists).toHaveLength(2);
      kit.deps.lists[1].answer(page([group('g'), group('old', { is_member: false, last_message: null })]));
      await settle();
      kit.deps.event('group.members_added', {
        group_id: 'old',
        conversation_id: 'group_old',
        operator_user_id: 'owner',
        group: groupSummary('old', 'Old'),
        user_ids: ['me'],
      });
      expect(kit.deps.lists).toHaveLength(3);
      kit.deps.lists[2].answer(page([group('g'), group('old')]));
      await settle();
      kit.deps.event('friend.added', {
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
      expect(kit.deps.lists).toHaveLength(4);
    });

    it('keeps the one-to-one conversation when the friend is deleted or blocked (as sync does)', async () => {
      await loaded([direct('a')]);
      const before = kit.store.getSnapshot();
      kit.deps.event('friend.deleted', { user_ids: ['me', 'a'], by: 'a', user_id: 'a', conversation_id: 'friend_a' });
      expect(kit.store.getSnapshot()).toBe(before);
    });

    it("follows a peer's new name and avatar", async () => {
      await loaded([direct('a'), direct('b')]);
      kit.deps.event('user.profile_updated', {
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
      expect(kit.store.get('friend_a')).toMatchObject({ title: 'Alice', avatar: 'https://avatar.test/alice.png' });
      expect(kit.store.get('friend_b')?.title).toBe('title of friend_b');
    });
  });
});
