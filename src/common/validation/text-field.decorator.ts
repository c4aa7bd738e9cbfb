import { ValidationArguments, ValidationOptions, registerDecorator } from 'class-validator';
import { charLength, hasControlChars, hasEdgeWhitespace } from '../text';

export interface TextRules {
  /** Minimum length in characters (code points); 0 allows the empty string. */
  min: number;
  /** Maximum length in characters (code points). */
  max: number;
  /** Refuse Unicode control characters (Cc). */
  noControl?: boolean;
  /** Refuse leading or trailing whitespace. */
  noEdgeWhitespace?: boolean;
  /** Whole-value pattern, with a human description for the error message. */
  pattern?: { regex: RegExp; description: string };
}

/** Describes why `value` breaks `rules`, or returns null when it satisfies them. */
export function textProblem(value: unknown, rules: TextRules): string | null {
  if (typeof value !== 'string') return 'must be a string';
  const length = charLength(value);
  if (length < rules.min || length > rules.max) {
    if (rules.min === 0) return `must be at most ${rules.max} characters`;
    return `must be ${rules.min}–${rules.max} characters`;
  }
  if (rules.noControl && hasControlChars(value)) return 'must not contain control characters';
  if (rules.noEdgeWhitespace && hasEdgeWhitespace(value)) return 'must not start or end with whitespace';
  if (rules.pattern && value.length > 0 && !rules.pattern.regex.test(value))
    return `must be ${rules.pattern.description}`;
  return null;
}

/** A string field checked by {@link textProblem}; the error message names the field. */
export function IsText(rules: TextRules, options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) => {
    registerDecorator({
      name: 'isText',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown) => textProblem(value, rules) === null,
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} ${textProblem(args.value, rules) ?? 'is invalid'}`,
      },
    });
  };
}
