import { TextListRules, textListProblem } from './text-list.decorator';

const IDS: TextListRules = {
  min: 1,
  max: 20,
  item: { min: 1, max: 19, pattern: { regex: /^[1-9][0-9]*$/, description: 'a message ID' } },
  unique: true,
  of: 'strings',
};

describe('textListProblem', () => {
  it('accepts distinct valid items within the bounds', () => {
    expect(textListProblem(['1', '2', '30'], IDS)).toBeNull();
  });

  it('names the first bad item and the first repeat by index', () => {
    expect(textListProblem(['1', '01'], IDS)).toBe('[1] must be a message ID');
    expect(textListProblem(['1', 2], IDS)).toBe('[1] must be a string');
    expect(textListProblem(['1', '2', '1'], IDS)).toBe('[2] is a duplicate');
    expect(textListProblem(['1', '1'], { ...IDS, unique: false })).toBeNull();
  });

  it('refuses a non-array and a wrong count, with the custom message for too few', () => {
    expect(textListProblem('1', IDS)).toBe('must be a JSON array of strings');
    expect(textListProblem([], IDS)).toBe('must have 1–20 items');
    expect(textListProblem([], { ...IDS, tooFew: 'must not be empty' })).toBe('must not be empty');
    expect(textListProblem([], { ...IDS, min: 0 })).toBeNull();
    expect(textListProblem(Array(21).fill('1'), { ...IDS, min: 0 })).toBe('must have at most 20 items');
  });

  it('refuses 100,000 repeated, invalid items by their count alone, before looking at any item', () => {
    const items = new Proxy(Array(100_000).fill('x') as unknown[], {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^[0-9]+$/.test(key)) throw new Error(`item ${key} was read`);
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    expect(textListProblem(items, IDS)).toBe('must have 1–20 items');
  });
});
