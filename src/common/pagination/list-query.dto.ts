import { ApiPropertyOptional } from '@nestjs/swagger';
import { ValidationArguments, registerDecorator } from 'class-validator';
import { Optional } from '../validation/presence.decorators';
import { IsText } from '../validation/text-field.decorator';

/** Refuses a parameter that must not be sent at all. */
function IsAbsent(hint: string): PropertyDecorator {
  return (target, propertyName) => {
    registerDecorator({
      name: 'isAbsent',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) => value === undefined,
        defaultMessage: (args: ValidationArguments) => `${args.property} is not supported: ${hint}`,
      },
    });
  };
}

const CURSOR_HINT = 'lists page by cursor (pass next_cursor unchanged as cursor)';

/** Query of every directory list: an optional cursor; page, offset and limit are refused. */
export class ListQueryDto {
  @ApiPropertyOptional({ description: 'next_cursor of the previous page, unchanged. Bound to the account, endpoint and filters.' })
  @Optional()
  @IsText({ min: 1, max: 1024 })
  cursor?: string;

  @IsAbsent(CURSOR_HINT)
  page?: unknown;

  @IsAbsent(CURSOR_HINT)
  offset?: unknown;

  @IsAbsent(CURSOR_HINT)
  limit?: unknown;
}
