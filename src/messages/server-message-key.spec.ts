import { CLIENT_MESSAGE_ID_RULES } from './dto/message-fields';
import { serverMessageKey } from './server-message-key';

describe('serverMessageKey', () => {
  it('is never a key a client may send, and fits the column', () => {
    const key = serverMessageKey('call', 'ffffffff-ffff-4fff-bfff-ffffffffffff');
    expect(CLIENT_MESSAGE_ID_RULES.pattern?.regex.test(key)).toBe(false);
    expect(key.length).toBeLessThanOrEqual(64);
  });

  it('keys a request_id of any allowed length within the column, distinctly', () => {
    const long = 'r'.repeat(64);
    const keys = [serverMessageKey('notice', long), serverMessageKey('notice', `${'r'.repeat(63)}s`)];
    for (const key of keys) expect(key.length).toBeLessThanOrEqual(64);
    expect(keys[0]).not.toBe(keys[1]);
    expect(serverMessageKey('host', 'short-1')).toBe('#host:short-1');
  });
});
