import { createHmac } from 'node:crypto';
import { PositionTokens } from './position-token';

describe('PositionTokens', () => {
  const tokens = new PositionTokens(Buffer.from('k'.repeat(32)));
  const at = 1_795_000_000_123;

  it('round-trips a position for the user it was given to', () => {
    const token = tokens.encode('42', 123456789n, at);
    expect(tokens.decode('42', token)).toEqual({ position: 123456789n, at });
    expect(tokens.decode('42', tokens.encode('42', 0n, 0))).toEqual({ position: 0n, at: 0 });
  });

  it('signs with standard HMAC-SHA256 (short and long keys), truncated to 12 bytes', () => {
    for (const key of [Buffer.from('k'.repeat(32)), Buffer.from('L'.repeat(100))]) {
      const token = new PositionTokens(key).encode('42', 123456789n, at);
      const [position, time, mac] = token.split('.');
      const expected = createHmac('sha256', key)
        .update(`42\n${position}.${time}`)
        .digest()
        .subarray(0, 12)
        .toString('base64url');
      expect(mac).toBe(expected);
    }
  });

  it('refuses another user, another key, and any change to the text', () => {
    const token = tokens.encode('42', 1_000_000n, at);
    expect(tokens.decode('43', token)).toBeNull();
    expect(new PositionTokens(Buffer.from('x'.repeat(32))).decode('42', token)).toBeNull();
    const [position, time, mac] = token.split('.');
    expect(tokens.decode('42', `${(Number.parseInt(position, 36) + 1).toString(36)}.${time}.${mac}`)).toBeNull();
    expect(tokens.decode('42', `0${position}.${time}.${mac}`)).toBeNull();
    expect(tokens.decode('42', `${position.toUpperCase()}.${time}.${mac}`)).toBeNull();
    expect(tokens.decode('42', `${position}.${time}.${mac}x`)).toBeNull();
    expect(tokens.decode('42', ` ${token}`)).toBeNull();
  });

  it.each([null, undefined, 77, {}, [], '', '77', 'a.b', 'x'.repeat(10_000), '\u0000.\u0000.\u0000'])(
    'answers null for %p',
    (given) => {
      expect(tokens.decode('42', given)).toBeNull();
    },
  );
});
