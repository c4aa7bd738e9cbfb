import type { ValidationError } from '@nestjs/common';
import { describeValidationErrors } from './strict-validation.pipe';

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
