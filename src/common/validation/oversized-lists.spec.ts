import { ArrayMaxSize, IsArray, ValidateIf } from 'class-validator';
import { findOversizedList } from './oversized-lists';
import { IsTextList } from './text-list.decorator';

class ListsDto {
  @IsArray()
  @ArrayMaxSize(3, { message: 'tags must have at most 3 tags' })
  tags?: string[];

  @IsTextList({ min: 1, max: 2, item: { min: 1, max: 5 }, unique: true, of: 'strings' })
  ids?: string[];

  @ValidateIf((object: { kind?: string }) => object.kind === 'listed')
  @ArrayMaxSize(1)
  only_when_listed?: string[];
}

class ChildDto extends ListsDto {}

describe('findOversizedList', () => {
  const describe = (body: Record<string, unknown>) => {
    const error = findOversizedList(ChildDto, body);
    return error && { property: error.property, message: Object.values(error.constraints ?? {})[0] };
  };

  it('names the first list over its ArrayMaxSize or IsTextList limit, inherited ones included', () => {
    expect(describe({ tags: ['a', 'b', 'c', 'd'] })).toEqual({
      property: 'tags',
      message: 'tags must have at most 3 tags',
    });
    expect(describe({ ids: Array(100_000).fill(1) })).toEqual({ property: 'ids', message: 'ids must have 1–2 items' });
  });

  it('leaves lists within their limit, and anything not a list, to the validation', () => {
    expect(describe({ tags: ['a', 'b', 'c'], ids: ['x', 'x'] })).toBeNull();
    expect(describe({ tags: 'abcd', ids: { length: 9 } })).toBeNull();
  });

  it('applies a limit only where the field is validated (ValidateIf)', () => {
    expect(describe({ only_when_listed: ['a', 'b'] })).toBeNull();
    expect(describe({ kind: 'listed', only_when_listed: ['a', 'b'] })?.property).toBe('only_when_listed');
  });
});
