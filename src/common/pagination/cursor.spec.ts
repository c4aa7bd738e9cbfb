import { AppError } from '../app-error';
import { CursorCodec } from './cursor';

describe('CursorCodec', () => {
  const codec = new CursorCodec('k'.repeat(32));
  const cursor = codec.encode('7', 'friends.list', { status: 'pending' }, { id: '42' });

  it('round-trips the position for the same account, endpoint and filters', () => {
    expect(codec.decode(cursor, '7', 'friends.list', { status: 'pending' })).toEqual({ id: '42' });
  });

  it.each([
    ['another account', () => codec.decode(cursor, '8', 'friends.list', { status: 'pending' })],
    ['another endpoint', () => codec.decode(cursor, '7', 'groups.list', { status: 'pending' })],
    ['changed filters', () => codec.decode(cursor, '7', 'friends.list', { status: 'accepted' })],
    ['another key', () => new CursorCodec('z'.repeat(32)).decode(cursor, '7', 'friends.list', { status: 'pending' })],
    [
      'a tampered body',
      () =>
        codec.decode(
          `${Buffer.from('{"u":"7","e":"friends.list","k":{"id":"1"}}').toString('base64url')}.${cursor.split('.')[1]}`,
          '7',
          'friends.list',
          { status: 'pending' },
        ),
    ],
    ['garbage', () => codec.decode('abc', '7', 'friends.list', { status: 'pending' })],
    ['an extra segment', () => codec.decode(`${cursor}.x`, '7', 'friends.list', { status: 'pending' })],
  ])('refuses %s with 1004 naming the cursor', (_name, decode) => {
    expect(decode).toThrow(AppError);
    expect(decode).toThrow(/^cursor: /);
  });

  it.each([null, undefined, 42, ['a.b'], { a: 1 }])(
    'refuses a non-string cursor (%p) with 1004 naming the cursor',
    (value) => {
      const decode = () => codec.decode(value as unknown as string, '7', 'friends.list', { status: 'pending' });
      expect(decode).toThrow(AppError);
      expect(decode).toThrow(/^cursor: /);
    },
  );

  it('treats filter order and absent values consistently', () => {
    const c = codec.encode('7', 'e', { a: 1, b: undefined }, 1);
    expect(codec.decode(c, '7', 'e', { b: null, a: 1 })).toBe(1);
  });
});
