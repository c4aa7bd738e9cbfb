import { ImMessage } from './conversation-window.js';
import { isHomePage, withTombstone } from './home-cache.js';

const message = (over: Partial<ImMessage> = {}): ImMessage => ({
  mid: '7',
  conversation_id: 'friend_a',
  conversation_seq: '3',
  sender_id: 'u_1',
  client_message_id: 'c-1',
  type: 'text',
  content: { text: 'secret text' },
  status: 'normal',
  created_at: 1000,
  updated_at: 1000,
  ...over,
});
const page = (last: ImMessage | null) => ({
  conversations: {
    items: [
      {
        conversation_id: 'friend_b',
        unread: 0,
        muted: false,
        last_message: message({ mid: '9', conversation_id: 'friend_b' }),
      },
      { conversation_id: 'friend_a', unread: 2, muted: false, last_message: last },
    ],
    next_cursor: null,
  },
  unread: { total: 2, total_unmuted: 2 },
});

describe('withTombstone: a recall or delete in the cached home page', () => {
  it("replaces the conversation's last message by its tombstone, and nothing else", () => {
    const before = page(message());
    const recalled = message({ status: 'recalled', content: null, updated_at: 2000 });
    const after = withTombstone(before, 'friend_a', recalled)!;
    expect(after.conversations.items[1]).toEqual({ ...before.conversations.items[1], last_message: recalled });
    expect(after.conversations.items[0]).toBe(before.conversations.items[0]);
    expect(after.unread).toBe(before.unread);
    // The page given is left as it was.
    expect(before.conversations.items[1].last_message?.content).toEqual({ text: 'secret text' });
  });

  it('applies a tombstone of the same version (a clock that did not move), once', () => {
    const recalled = message({ status: 'recalled', content: null });
    const after = withTombstone(page(message()), 'friend_a', recalled)!;
    expect(after.conversations.items[1].last_message?.status).toBe('recalled');
    expect(withTombstone(after, 'friend_a', recalled)).toBeNull();
  });

  it("keeps the conversation's own ID for a message event that names none", () => {
    const bare = { ...message({ status: 'deleted', content: null, updated_at: 2000 }) } as Partial<ImMessage>;
    delete bare.conversation_id;
    const after = withTombstone(page(message()), 'friend_a', bare as ImMessage)!;
    expect(after.conversations.items[1].last_message).toMatchObject({ conversation_id: 'friend_a', status: 'deleted' });
  });

  it('changes nothing for another message, another conversation, an older version or an empty conversation', () => {
    const tombstone = message({ status: 'recalled', content: null, updated_at: 2000 });
    expect(withTombstone(page(message()), 'friend_a', { ...tombstone, mid: '6' })).toBeNull();
    expect(withTombstone(page(message()), 'friend_c', tombstone)).toBeNull();
    expect(
      withTombstone(page(message({ status: 'deleted', content: null, updated_at: 3000 })), 'friend_a', tombstone),
    ).toBeNull();
    expect(withTombstone(page(null), 'friend_a', tombstone)).toBeNull();
  });

  it('recognises a stored sync page', () => {
    expect(isHomePage(page(null))).toBe(true);
    expect(isHomePage(undefined)).toBe(false);
    expect(isHomePage({ conversations: {} })).toBe(false);
  });
});
