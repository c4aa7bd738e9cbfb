import { ApiProperty } from '@nestjs/swagger';

/** The provider's reply format: no msg, no data. */
export class ProviderReply {
  @ApiProperty({ type: 'integer', enum: [0], example: 0 }) code: 0;
}

/** Any failed check of a callback, answered with HTTP 403; written by AllExceptionsFilter. */
export class ProviderRefusal {
  @ApiProperty({ type: 'integer', enum: [1], example: 1 }) code: 1;
}
