import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
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

/**
 * Absent or null skips the remaining rules, and a null becomes absent (`undefined`) in the DTO:
 * null on an optional field means "not sent" (hosts send unset fields as null), so no service
 * can mistake it for a value to store or decode.
 */
export function Optional(): PropertyDecorator {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) => (value === null ? undefined : value), { toClassOnly: true }),
    ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null),
  );
}

/**
 * Absent skips the remaining rules; a JSON null does not, so it is refused by them, naming the
 * field (the admin API's convention: a null is never taken as "absent").
 */
export function Absentable(): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined);
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
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} is required when any of ${group.join(', ')} is sent (they go together)`,
      },
    });
  };
}
