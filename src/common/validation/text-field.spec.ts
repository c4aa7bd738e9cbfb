import { charLength } from '../text';
import { textProblem } from './text-field.decorator';

describe('text rules', () => {
  const nickname = { min: 1, max: 80, noControl: true, noEdgeWhitespace: true };

  it('counts characters as code points', () => {
    expect(charLength('😀'.repeat(80))).toBe(80);
    expect(textProblem('😀'.repeat(80), nickname)).toBeNull();
    expect(textProblem('😀'.repeat(81), nickname)).toBe('must be 1–80 characters');
  });

  it('refuses non-strings, empties, control characters and edge whitespace', () => {
    expect(textProblem(5, nickname)).toBe('must be a string');
    expect(textProblem(['a'], nickname)).toBe('must be a string');
    expect(textProblem('', nickname)).toBe('must be 1–80 characters');
    for (const control of ['\u0000', '\n', '\t', '\u007f', '\u0085'])
      expect(textProblem(`a${control}b`, nickname)).toBe('must not contain control characters');
    expect(textProblem(' a', nickname)).toBe('must not start or end with whitespace');
    expect(textProblem('a\u3000', nickname)).toBe('must not start or end with whitespace');
    expect(textProblem('a b', nickname)).toBeNull();
  });

  it('applies patterns to non-empty values only', () => {
    const rules = { min: 0, max: 10, pattern: { regex: /^[a-z]+$/, description: 'lowercase' } };
    expect(textProblem('', rules)).toBeNull();
    expect(textProblem('abc', rules)).toBeNull();
    expect(textProblem('aBc', rules)).toBe('must be lowercase');
  });
});
