import { ValidationArguments, registerDecorator } from 'class-validator';
import { TextRules, textProblem } from './text-field.decorator';

export interface TextListRules {
  min: number;
  max: number;
  item: TextRules;
  /** Refuse a repeated item, naming its index. */
  unique?: boolean;
  /** What the array holds, for "must be a JSON array of …". */
  of: string;
  /** The message when there are fewer than `min` items (default: "must have min–max items"). */
  tooFew?: string;
}

/**
 * Describes why `value` is not a list obeying `rules`, or returns null. The item count is checked
 * before any item is looked at and duplicates are found with a Set, so an oversized array (a 1 MiB
 * body holds ~100,000 short strings) costs one length check: class-validator's ArrayUnique is
 * quadratic and its `each` rules run even after ArrayMaxSize failed.
 */
export function textListProblem(value: unknown, rules: TextListRules): string | null {
  if (!Array.isArray(value)) return `must be a JSON array of ${rules.of}`;
  if (value.length < rules.min && rules.tooFew) return rules.tooFew;
  if (value.length < rules.min || value.length > rules.max)
    return rules.min > 0 ? `must have ${rules.min}–${rules.max} items` : `must have at most ${rules.max} items`;
  const seen = new Set<string>();
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    const itemProblem = textProblem(item, rules.item);
    if (itemProblem) return `[${i}] ${itemProblem}`;
    if (rules.unique) {
      if (seen.has(item as string)) return `[${i}] is a duplicate`;
      seen.add(item as string);
    }
  }
  return null;
}

/** A JSON array of strings checked by {@link textListProblem}; the message names the field or item. */
export function IsTextList(rules: TextListRules): PropertyDecorator {
  return (target, propertyName) => {
    registerDecorator({
      name: 'isTextList',
      target: target.constructor,
      propertyName: propertyName as string,
      // Read by findOversizedList, which refuses an oversized list before the body is copied.
      constraints: [rules],
      validator: {
        validate: (value: unknown) => textListProblem(value, rules) === null,
        defaultMessage: (args: ValidationArguments) => {
          const text = textListProblem(args.value, rules) ?? 'is invalid';
          return text.startsWith('[') ? `${args.property}${text}` : `${args.property} ${text}`;
        },
      },
    });
  };
}
