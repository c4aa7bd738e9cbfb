import { ValidationArguments, registerDecorator } from 'class-validator';
import { USER_ID_RULES } from './field-rules';
import { textProblem } from './text-field.decorator';

/**
 * A JSON array of `min`–`max` distinct external user IDs; the message names the first
 * offending item by index.
 */
export function AreUserIds(min: number, max: number): PropertyDecorator {
  const problem = (value: unknown): string | null => {
    if (!Array.isArray(value)) return 'must be a JSON array of user IDs';
    if (value.length < min || value.length > max)
      return min > 0 ? `must have ${min}–${max} items` : `must have at most ${max} items`;
    const seen = new Set<string>();
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const itemProblem = textProblem(item, USER_ID_RULES);
      if (itemProblem) return `[${i}] ${itemProblem}`;
      if (seen.has(item as string)) return `[${i}] is a duplicate`;
      seen.add(item as string);
    }
    return null;
  };
  return (target, propertyName) => {
    registerDecorator({
      name: 'areUserIds',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) => problem(value) === null,
        defaultMessage: (args: ValidationArguments) => {
          const text = problem(args.value) ?? 'is invalid';
          return text.startsWith('[') ? `${args.property}${text}` : `${args.property} ${text}`;
        },
      },
    });
  };
}
