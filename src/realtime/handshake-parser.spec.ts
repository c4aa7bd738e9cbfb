import type { Packet } from 'socket.io-parser';
import { AUTH_NOT_OBJECT, HandshakeDecoder } from './handshake-parser';

function decode(text: string): Packet {
  const decoder = new HandshakeDecoder();
  let packet: Packet | undefined;
  decoder.on('decoded', (decoded: Packet) => (packet = decoded));
  decoder.add(text);
  return packet!;
}

describe('HandshakeDecoder', () => {
  it.each([
    ['0["token"]', '/', 'an array'],
    ['0"token"', '/', 'a string'],
    ['0/chat,[1]', '/chat', 'an array'],
    ['0true', '/', 'a boolean'],
    ['0null', '/', 'null'],
    ['0{oops', '/', 'not JSON'],
  ])('hands %s to the middleware with auth marked', (text, nsp, kind) => {
    const packet = decode(text);
    expect(packet).toEqual({ type: 0, nsp, data: { [AUTH_NOT_OBJECT]: kind } });
    expect(Object.keys(packet.data as object)).toEqual([]);
  });

  it('decodes every other packet as socket.io does', () => {
    expect(decode('0{"token":"t"}')).toEqual({ type: 0, nsp: '/', data: { token: 't' } });
    expect(decode('0')).toEqual({ type: 0, nsp: '/' });
    expect(decode('2["ping",1]')).toEqual({ type: 2, nsp: '/', data: ['ping', 1] });
    expect(() => decode('2"not an event"')).toThrow('invalid payload');
  });
});
