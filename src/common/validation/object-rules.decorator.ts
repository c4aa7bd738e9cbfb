import { ValidationArguments, registerDecorator } from 'class-validator';

/** A JSON object (not an array, not null) with at least `minKeys` keys. */
export function IsJsonObject(minKeys = 0): PropertyDecorator {
  return (target, propertyName) => {
    registerDecorator({
      name: 'isJsonObject',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) =>
          value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length >= minKeys,
        defaultMessage: (args: ValidationArguments) =>
          Array.isArray(args.value)
            ? `${args.property} must be a JSON object, not an array`
            : `${args.property} must be a JSON object with at least ${minKeys} key${minKeys === 1 ? '' : 's'}`,
      },
    });
  };
}
