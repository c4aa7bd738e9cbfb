import { AppError } from '../common/app-error';
import { findBlockedKeyword, parseMessageContent } from './message-content';

describe('parseMessageContent', () => {
  it('keeps only the known fields of a text message and makes it searchable', () => {
    expect(parseMessageContent('text', { text: 'Hello World', extra: 1 })).toEqual({
      content: { text: 'Hello World' },
      searchText: 'hello world',
      moderatedText: 'Hello World',
      mediaId: null,
    });
  });

  it('counts text length in characters at the boundary', () => {
    expect(() => parseMessageContent('text', { text: '😀'.repeat(5000) })).not.toThrow();
    expect(() => parseMessageContent('text', { text: '😀'.repeat(5001) })).toThrow('content.text');
  });

  it.each([
    ['text', { text: '' }, 'content.text'],
    ['text', { text: '   ' }, 'content.text'],
    ['text', { text: 5 }, 'content.text'],
    ['text', [], 'content'],
    ['image', { media_id: 7 }, 'content.media_id'],
    ['image', { media_id: '7', width: '100' }, 'content.width'],
    ['image', { media_id: '7', height: 0 }, 'content.height'],
    ['file', {}, 'content.media_id'],
    ['custom', { data: [1] }, 'content.data'],
    ['custom', { data: { a: 'x'.repeat(9000) } }, 'content.data'],
    ['custom', { data: {}, description: 3 }, 'content.description'],
  ] as const)('refuses %s content %j naming %s', (type, content, field) => {
    expect(() => parseMessageContent(type, content)).toThrow(AppError);
    expect(() => parseMessageContent(type, content)).toThrow(new RegExp(`^${field.replace('.', '\\.')}: `));
  });

  it('references media for images and files', () => {
    expect(parseMessageContent('image', { media_id: '12', width: 640, height: 480 })).toMatchObject({
      mediaId: '12',
      content: { media_id: '12', width: 640, height: 480 },
    });
    expect(parseMessageContent('file', { media_id: '13' }).mediaId).toBe('13');
  });

  it('finds blocked keywords case-insensitively', () => {
    expect(findBlockedKeyword('Buy CHEAP pills', ['cheap pills'])).toBe('cheap pills');
    expect(findBlockedKeyword('hello', ['cheap pills'])).toBeNull();
  });
});
