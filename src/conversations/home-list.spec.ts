import { homeEntryFromRow, homeOrder } from './home-list';

const viewer = { internalId: '7', externalId: 'me-ext' };

function row(overrides: Record<string, string | number | null> = {}): Record<string, string | number | null> {
  return {
    conversation_id: '30',
    is_group: 0,
    read_seq: '1',
    visible_from_seq: '0',
    visible_to_seq: null,
    uncounted: 0,
    unread_count: 2,
    last_activity_at: 1000,
    pinned: 0,
    muted: 1,
    hidden: 0,
    hidden_seq: null,
    type: 'direct',
    last_seq: '3',
    content_updated_at: 1500,
    last_message_at: 1000,
    deletion_revision: '0',
    p_external_id: 'peer-ext',
    p_nickname: 'Peer',
    p_avatar: '',
    peer_id: '8',
    g_public_id: null,
    g_name: null,
    g_avatar: null,
    lm_id: '99',
    lm_seq: '3',
    lm_sender_id: '8',
    lm_client_message_id: 'c1',
    lm_type: 'text',
    lm_content: '{"text":"hi"}',
    lm_status: 'normal',
    lm_created_at: 1000,
    lm_updated_at: 1000,
    s_external_id: null,
    ...overrides,
  };
}

describe('homeEntryFromRow', () => {
  it('is null for the totals-only row of an empty page', () => {
    expect(homeEntryFromRow(row({ conversation_id: null }), viewer)).toBeNull();
  });

  it('names the sender of a one-to-one last message without a users lookup: the peer or the viewer', () => {
    expect(homeEntryFromRow(row(), viewer)?.lastMessage?.senderExternalId).toBe('peer-ext');
    expect(homeEntryFromRow(row({ lm_sender_id: '7' }), viewer)?.lastMessage?.senderExternalId).toBe('me-ext');
  });

  it('uses the joined sender otherwise (another group member)', () => {
    const entry = homeEntryFromRow(
      row({
        is_group: 1,
        type: 'group',
        peer_id: null,
        p_external_id: null,
        g_public_id: 'g1',
        g_name: 'G',
        g_avatar: '',
        lm_sender_id: '9',
        s_external_id: 'third',
      }),
      viewer,
    );
    expect(entry?.lastMessage?.senderExternalId).toBe('third');
    expect(entry?.peer).toBeNull();
    expect(entry?.group).toEqual({ publicId: 'g1', name: 'G', avatar: '' });
  });

  it('keeps a one-to-one row as stored and derives a group row from its conversation', () => {
    expect(homeEntryFromRow(row(), viewer)?.member).toMatchObject({
      unreadCount: 2,
      lastActivityAt: 1000,
      muted: true,
      pinned: false,
    });
    // Group: unread = last_seq - read_seq - uncounted; activity follows the conversation's last message.
    const group = homeEntryFromRow(
      row({ is_group: 1, type: 'group', unread_count: 0, uncounted: 1, last_message_at: 2000 }),
      viewer,
    );
    expect(group?.member).toMatchObject({ unreadCount: 1, lastActivityAt: 2000 });
  });

  it('has no last message for a former member (read separately) or an empty conversation', () => {
    expect(homeEntryFromRow(row({ lm_id: null }), viewer)?.lastMessage).toBeNull();
  });
});

describe('homeOrder', () => {
  it('puts pinned first, then later activity, then the higher conversation ID', () => {
    const items = [
      { pinned: false, lastActivityAt: 5, conversationId: '2' },
      { pinned: true, lastActivityAt: 1, conversationId: '1' },
      { pinned: false, lastActivityAt: 5, conversationId: '10' },
      { pinned: false, lastActivityAt: 9, conversationId: '3' },
    ];
    expect(items.sort(homeOrder).map((i) => i.conversationId)).toEqual(['1', '3', '10', '2']);
  });
});
