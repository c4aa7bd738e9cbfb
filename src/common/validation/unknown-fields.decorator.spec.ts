import { Type } from 'class-transformer';
import { IsBoolean, IsInt, ValidateNested } from 'class-validator';
import { Optional } from './presence.decorators';
import { StrictValidationPipe } from './strict-validation.pipe';
import { RefuseUnknownFields } from './unknown-fields.decorator';

@RefuseUnknownFields('switch')
class SwitchesDto {
  @Optional() @IsBoolean() on?: boolean;
}

class ItemDto {
  @Optional() @IsInt() n?: number;
}

@RefuseUnknownFields()
class StrictDto {
  @Optional() @IsInt() count?: number;
  @Optional() @ValidateNested() @Type(() => SwitchesDto) switches?: SwitchesDto;
  @Optional() @ValidateNested({ each: true }) @Type(() => ItemDto) items?: ItemDto[];
}

class StrictChildDto extends StrictDto {}

class LenientDto {
  @Optional() @IsInt() count?: number;
  @Optional() @ValidateNested() @Type(() => SwitchesDto) switches?: SwitchesDto;
}

describe('RefuseUnknownFields', () => {
  const pipe = new StrictValidationPipe();
  const outcome = async (metatype: new () => object, body: unknown): Promise<unknown> => {
    try {
      return { accepted: await pipe.transform(body, { type: 'body', metatype }) };
    } catch (error) {
      return (error as Error).message;
    }
  };

  it('refuses an unknown key at any depth of a marked DTO, naming its path and what the keys are', async () => {
    expect(await outcome(StrictDto, { count: 1, cuont: 2 })).toBe('cuont: unknown field');
    expect(await outcome(StrictDto, { switches: { on: true, of: false } })).toBe('switches.of: unknown switch');
    expect(await outcome(StrictDto, { items: [{ n: 1 }, { n: 2, m: 3 }] })).toBe('items.1.m: unknown field');
    expect(await outcome(StrictChildDto, { count: 1, extra: true })).toBe('extra: unknown field');
  });

  it('accepts a marked DTO with known keys only', async () => {
    expect(await outcome(StrictDto, { count: 1, switches: { on: true }, items: [{ n: 1 }] })).toEqual({
      accepted: { count: 1, switches: { on: true }, items: [{ n: 1 }] },
    });
  });

  it('leaves an unmarked DTO dropping unknown keys, even around a marked nested class', async () => {
    expect(await outcome(LenientDto, { count: 1, extra: 2, switches: { on: true, of: false } })).toEqual({
      accepted: { count: 1, switches: { on: true } },
    });
  });
});
