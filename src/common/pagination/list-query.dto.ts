import { ApiPropertyOptional } from '@nestjs/swagger';
import { Optional } from '../validation/presence.decorators';
import { IsText } from '../validation/text-field.decorator';
import type { ListQuery } from '../../contract/requests';

/**
 * Query of every directory list: an optional cursor. page, offset and limit are refused for
 * every route by the pagination-params middleware (src/common/http), not per DTO.
 */
export class ListQueryDto implements ListQuery {
  @ApiPropertyOptional({
    description:
      'next_cursor of the previous page, unchanged. Bound to the account, endpoint and filters. page, offset and limit are refused (1004).',
  })
  @Optional()
  @IsText({ min: 1, max: 1024 })
  cursor?: string;
}
