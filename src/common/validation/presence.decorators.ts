import { applyDecorators } from '@nestjs/common';
import { IsDefined, ValidateIf, ValidationArguments, ValidationOptions, registerDecorator } from 'class-validator';

/** The field must be present and not null. */
export function Required(): PropertyDecorator {
  return IsDefined({ message: (args: ValidationArguments) => `${args.property} is required` });
}

/**
 * The field must be present; `null` is accepted and skips the remaining rules (spec 4.2:
 * "nullable fields are sent as null, not omitted").
 */
export function RequiredNullable(): PropertyDecorator {
  return applyDecorators(
    ValidateIf((_object: object, value: unknown) => value !== null),
    IsDefined({ message: (args: ValidationArguments) => `${args.property} is required (send null when empty)` }),
  );
}

/** Absent (or null) skips the remaining rules. */
export function Optional(): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null);
}

/** When any field of the group is sent, this one must be sent too. */
export function SentTogether(group: readonly string[], options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) => {
    registerDecorator({
      name: 'sentTogether',
      target: target.constructor,
      propertyName: propertyName as string,
      options,
      validator: {
        validate: (value: unknown, args: ValidationArguments) => {
          const object = args.object as Record<string, unknown>;
          const anySent = group.some((field) => object[field] !== undefined && object[field] !== null);
          return !anySent || (value !== undefined && value !== null);
        },
        defaultMessage: (args: ValidationArguments) => `${args.property} is required when any of ${group.join(', ')} is sent (they go together)`,
      },
    });
  };
}
