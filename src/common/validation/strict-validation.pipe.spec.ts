import type { ValidationError } from '@nestjs/common';
import { StrictValidationPipe, describeValidationErrors } from './strict-validation.pipe';

const error = (property: string, message: string, children: ValidationError[] = []): ValidationError => ({
  property,
  constraints: message ? { rule: message } : undefined,
  children,
});

describe('describeValidationErrors', () => {
  it('starts the msg with the field path', () => {
    expect(describeValidationErrors([error('nickname', 'nickname must be 1–80 characters')])).toBe(
      'nickname: must be 1–80 characters',
    );
    expect(describeValidationErrors([error('content', '', [error('text', 'text must be a string')])])).toBe(
      'content.text: must be a string',
    );
  });

  it('names the array item an array rule names', () => {
    expect(describeValidationErrors([error('member_ids', 'member_ids[0] must be a string')])).toBe(
      'member_ids[0]: must be a string',
    );
    expect(describeValidationErrors([error('message_ids', 'message_ids[12] must be a positive decimal string')])).toBe(
      'message_ids[12]: must be a positive decimal string',
    );
  });

  it('keeps a message that does not start with the property', () => {
    expect(describeValidationErrors([error('cursor', 'an unknown value was passed')])).toBe(
      'cursor: an unknown value was passed',
    );
  });
});

describe('StrictValidationPipe: what JSON cannot carry', () => {
  class Dto {}
  const pipe = new StrictValidationPipe();
  const refusal = async (body: unknown): Promise<string> => {
    try {
      await pipe.transform(body, { type: 'body', metatype: Dto });
    } catch (error) {
      return (error as Error).message;
    }
    return 'accepted';
  };

  it('refuses a number JSON cannot represent (1e400 parses to Infinity), naming its path', async () => {
    expect(await refusal(JSON.parse('{"content":{"n":1e400}}'))).toBe('content.n: must be a finite number');
    expect(await refusal(JSON.parse('{"list":[1,-1e400]}'))).toBe('list[1]: must be a finite number');
    expect(await refusal({ n: NaN })).toBe('n: must be a finite number');
  });

  it('names a refused key with a lone surrogate as a JSON-style escape', async () => {
    const msg = await refusal(JSON.parse('{"ok":1,"bad\\ud800key":1}'));
    expect(msg).toBe('bad\\ud800key: contains invalid Unicode (a lone surrogate)');
    expect(/\p{Cs}/u.test(msg)).toBe(false);
  });

  it('escapes a lone surrogate in a validation path', () => {
    expect(describeValidationErrors([error('x\udc00', 'x\udc00 must be a string')])).toBe('x\\udc00: must be a string');
  });
});
