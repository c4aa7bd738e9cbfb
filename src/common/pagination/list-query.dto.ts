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

/**
 * page, offset and limit are refused wherever a reply is paged or capped, rather than ignored:
 * a client sending them expects a page size or position that the reply would silently not have.
 */
function RefusesOffsetPaging(hint: string): ClassDecorator {
  return (target) => {
    for (const name of ['page', 'offset', 'limit']) IsAbsent(hint)(target.prototype as object, name);
  };
}

/** GET /app/sdk/messages: history pages by sequence. */
export const SEQUENCE_PAGING = RefusesOffsetPaging('history pages by sequence (before_seq or after_seq, 50 messages a page)');
/** GET /app/sdk/unread: at most 100 conversations, no pages. */
export const NO_PAGING = RefusesOffsetPaging('this reply has no pages (has_more says whether more exist)');

/** Query of every directory list: an optional cursor; page, offset and limit are refused. */
@RefusesOffsetPaging('lists page by cursor (pass next_cursor unchanged as cursor)')
export class ListQueryDto {
  @ApiPropertyOptional({ description: 'next_cursor of the previous page, unchanged. Bound to the account, endpoint and filters.' })
  @Optional()
  @IsText({ min: 1, max: 1024 })
  cursor?: string;
}
