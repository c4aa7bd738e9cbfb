import { ApiProperty } from '@nestjs/swagger';
import { ValidationArguments, registerDecorator } from 'class-validator';
import { isDecimalId } from '../../common/ids';
import { Required } from '../../common/validation/presence.decorators';
import type { FriendRequestRefRequest } from '../../contract/requests';

/** A positive decimal string that fits a BIGINT (JSON numbers are refused: IDs are strings). */
export function IsDecimalIdString(): PropertyDecorator {
  return (target, propertyName) => {
    registerDecorator({
      name: 'isDecimalIdString',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) => typeof value === 'string' && isDecimalId(value),
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} must be a positive decimal string of at most 19 digits`,
      },
    });
  };
}

/** POST /app/sdk/friends/requests/accept and /reject */
export class FriendRequestRefDto implements FriendRequestRefRequest {
  @ApiProperty({
    description: "The request's `id` (decimal string) from the incoming list or an event.",
    example: '42',
  })
  @Required()
  @IsDecimalIdString()
  id: string;
}
