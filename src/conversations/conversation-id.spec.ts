import { directConversationId, directKey, groupConversationId, parseConversationId } from './conversation-id';

describe('conversation IDs', () => {
  it('encodes the peer as unpadded Base64URL', () => {
    expect(directConversationId('a')).toBe('friend_YQ');
    expect(directConversationId('用户?>')).toBe(`friend_${Buffer.from('用户?>').toString('base64url')}`);
    expect(directConversationId('用户?>')).not.toMatch(/[=+/]/);
  });

  it('round-trips direct and group IDs', () => {
    expect(parseConversationId(directConversationId('user-42'))).toEqual({ type: 'direct', peerExternalId: 'user-42' });
    expect(parseConversationId(groupConversationId('team.a_1-b'))).toEqual({
      type: 'group',
      publicGroupId: 'team.a_1-b',
    });
  });

  it.each([
    'friend_',
    'friend_YQ==',
    'friend_Y+Q',
    'friend_YR',
    'group_',
    'group_has space',
    `group_${'x'.repeat(33)}`,
    'dm_YQ',
    'YQ',
    `friend_${Buffer.from(' padded').toString('base64url')}`,
  ])('refuses %s', (value) => {
    expect(parseConversationId(value)).toBeNull();
  });

  it('orders a direct pair numerically, not as text', () => {
    expect(directKey('10', '9')).toBe('9:10');
    expect(directKey('9', '10')).toBe('9:10');
  });
});
