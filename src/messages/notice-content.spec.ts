import { AppError } from '../common/app-error';
import { parseNoticeContent } from './message-content';

const fieldOf = (run: () => unknown): string => {
  try {
    run();
  } catch (error) {
    return (error as AppError).message;
  }
  return 'accepted';
};

describe('parseNoticeContent', () => {
  it('keeps text and data, drops unknown fields and a null data', () => {
    expect(parseNoticeContent({ text: 'Hi', data: { a: 1 }, extra: true }).content).toEqual({
      text: 'Hi',
      data: { a: 1 },
    });
    expect(parseNoticeContent({ text: 'Hi', data: null }).content).toEqual({ text: 'Hi' });
    expect(parseNoticeContent({ text: 'Ünïcödé 🎉' }).searchText).toBe('ünïcödé 🎉');
  });

  it.each([
    [null, 'content'],
    [[], 'content'],
    [{}, 'content.text'],
    [{ text: '  ' }, 'content.text'],
    [{ text: 5 }, 'content.text'],
    [{ text: 'x'.repeat(5001) }, 'content.text'],
    [{ text: 'x', data: [] }, 'content.data'],
    [{ text: 'x', data: 'y' }, 'content.data'],
    [{ text: 'x', data: { big: 'y'.repeat(9000) } }, 'content.data'],
  ])('refuses %j naming %s', (content, field) => {
    expect(fieldOf(() => parseNoticeContent(content))).toContain(field);
  });
});
