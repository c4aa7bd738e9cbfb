import { CLIENT_MESSAGE_ID_RULES } from './dto/message-fields';
import { serverMessageKey } from './server-message-key';

describe('serverMessageKey', () => {
  it('is never a key a client may send, and fits the column', () => {
    const key = serverMessageKey('call', 'ffffffff-ffff-4fff-bfff-ffffffffffff');
    expect(CLIENT_MESSAGE_ID_RULES.pattern?.regex.test(key)).toBe(false);
    expect(key.length).toBeLessThanOrEqual(64);
  });
});
