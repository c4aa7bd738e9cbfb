import { HIDDEN_THREAD, PREVIEW_MAX, PushSubject, composeNotification, messageText, previewOf } from './push-composer';

const times = { createdAt: 1_700_000_000_000, messageTtlSeconds: 3600, callTtlSeconds: 60 };
const direct: PushSubject = {
  kind: 'message',
  eventId: '3f2b8c1e-0000-4000-8000-000000000001',
  conversationId: 'friend_YWxpY2U',
  groupName: null,
  senderId: 'alice',
  senderName: 'Alice',
  messageId: '42',
  seq: '7',
  messageType: 'text',
  content: { text: 'See you at 8' },
};

describe('composeNotification', () => {
  it('full preview: sender as title, text as body, with the data the app opens the conversation from', () => {
    const n = composeNotification(direct, { preview: 'full', badge: 140, locale: 'en-US' }, times);
    expect(n).toEqual({
      eventId: direct.eventId,
      kind: 'message',
      priority: 'high',
      title: 'Alice',
      body: 'See you at 8',
      badge: 140,
      threadId: 'friend_YWxpY2U',
      expiresAt: times.createdAt + 3_600_000,
      data: {
        type: 'message',
        event_id: direct.eventId,
        conversation_id: 'friend_YWxpY2U',
        message_id: '42',
        conversation_seq: '7',
        sender_id: 'alice',
      },
    });
  });

  it('sender level hides the text; none hides the sender too, in the data as well', () => {
    const sender = composeNotification(direct, { preview: 'sender', badge: 1, locale: null }, times);
    expect([sender.title, sender.body]).toEqual(['Alice', 'New message']);
    const none = composeNotification(direct, { preview: 'none', badge: 1, locale: null }, times);
    expect([none.title, none.body]).toEqual([null, 'You have a new message']);
    expect(none.data).toEqual({ type: 'message', event_id: direct.eventId });
    expect(none.threadId).toBe(HIDDEN_THREAD);
    // The one-to-one conversation ID encodes the peer's user ID: it does not leave at `none`.
    for (const secret of ['See you', 'Alice', 'alice', 'friend_YWxpY2U', 'YWxpY2U'])
      expect(JSON.stringify(none)).not.toContain(secret);
  });

  it('none keeps what answering needs and nothing that names anyone', () => {
    const call = composeNotification(
      {
        kind: 'call',
        eventId: 'e-call',
        conversationId: 'friend_YWxpY2U',
        groupName: null,
        callId: '0b7c1d2e-0000-4000-8000-000000000002',
        media: 'audio',
        callerId: 'alice',
        callerName: 'Alice',
      },
      { preview: 'none', badge: 0, locale: null },
      times,
    );
    expect(call.data).toEqual({
      type: 'call',
      event_id: 'e-call',
      call_id: '0b7c1d2e-0000-4000-8000-000000000002',
      media: 'audio',
    });
    const invitation = composeNotification(
      {
        kind: 'group_invitation',
        eventId: 'e2',
        groupId: 'secret-club',
        conversationId: 'group_secret-club',
        groupName: 'Secret club',
        inviterId: 'bob',
        inviterName: 'Bob',
      },
      { preview: 'none', badge: 0, locale: null },
      times,
    );
    expect(JSON.stringify(invitation)).not.toMatch(/secret|bob/i);
  });

  it('group messages: the group as title and the sender before the text; Chinese generic texts for zh', () => {
    const group = { ...direct, conversationId: 'group_g1', groupName: 'Climbing' };
    const n = composeNotification(group, { preview: 'full', badge: 0, locale: 'zh-Hans-CN' }, times);
    expect([n.title, n.body, n.threadId]).toEqual(['Climbing', 'Alice: See you at 8', 'group_g1']);
    const image = composeNotification(
      { ...group, messageType: 'image', content: { media_id: '9' } },
      { preview: 'full', badge: 0, locale: 'zh-CN' },
      times,
    );
    expect(image.body).toBe('Alice: [图片]');
  });

  it('calls are high priority with the call TTL and no text of a message', () => {
    const call = composeNotification(
      {
        kind: 'call',
        eventId: 'e-call',
        conversationId: 'friend_YWxpY2U',
        groupName: null,
        callId: 'c-1',
        media: 'video',
        callerId: 'alice',
        callerName: 'Alice',
      },
      { preview: 'full', badge: 3, locale: null },
      times,
    );
    expect(call).toMatchObject({
      kind: 'call',
      priority: 'high',
      title: 'Alice',
      body: 'Incoming video call',
      expiresAt: times.createdAt + 60_000,
      data: { type: 'call', call_id: 'c-1', media: 'video', conversation_id: 'friend_YWxpY2U', sender_id: 'alice' },
    });
  });

  it('friend requests and group invitations are normal priority', () => {
    const request = composeNotification(
      {
        kind: 'friend_request',
        eventId: 'e1',
        requestId: '5',
        fromId: 'bob',
        fromName: 'Bob',
        greeting: 'hi, it is Bob',
      },
      { preview: 'full', badge: 0, locale: null },
      times,
    );
    expect([request.priority, request.title, request.body, request.data.request_id]).toEqual([
      'normal',
      'Bob',
      'hi, it is Bob',
      '5',
    ]);
    const invitation = composeNotification(
      {
        kind: 'group_invitation',
        eventId: 'e2',
        groupId: 'g1',
        conversationId: 'group_g1',
        groupName: 'Climbing',
        inviterId: 'bob',
        inviterName: 'Bob',
      },
      { preview: 'none', badge: 0, locale: null },
      times,
    );
    expect([invitation.priority, invitation.title, invitation.body]).toEqual(['normal', null, 'New group invitation']);
  });
});

describe('previews', () => {
  it('cut long text on a code point with an ellipsis, never inside a surrogate pair, on one line', () => {
    const emoji = '😀'.repeat(PREVIEW_MAX + 10);
    const cut = previewOf(emoji);
    expect(Array.from(cut)).toHaveLength(PREVIEW_MAX);
    expect(cut.endsWith('…')).toBe(true);
    expect(cut).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect(previewOf('line one\n\nline two\t end ')).toBe('line one line two end');
  });

  it('name what has no text', () => {
    const en = { image: '[Image]', file: '[File]', call: '[Call]', custom: '[Message]', newMessage: 'New message' };
    const texts = {
      ...en,
      youHaveMessage: '',
      incomingAudio: '',
      incomingVideo: '',
      incomingCall: '',
      friendRequest: '',
      sentFriendRequest: '',
      groupInvitation: '',
      invitedYou: () => '',
    };
    expect(messageText('file', { media_id: '1' }, texts)).toBe('[File]');
    expect(messageText('custom', { data: {}, description: 'A poll' }, texts)).toBe('A poll');
    expect(messageText('custom', { data: {}, description: '' }, texts)).toBe('[Message]');
    expect(messageText('notice', { text: 'Maintenance at 2am' }, texts)).toBe('Maintenance at 2am');
    expect(messageText('text', null, texts)).toBe('New message');
  });
});
