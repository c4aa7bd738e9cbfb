import { ApiProperty } from '@nestjs/swagger';

/** The cursor half of every list reply (spec 4: cursor pages, never page/offset/limit); each list adds its typed `items`. */
export abstract class CursorPageReply {
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Pass unchanged as `cursor` for the next page; null on the last page.',
  })
  next_cursor: string | null;
  @ApiProperty({ description: 'Whether another page follows.' }) has_more: boolean;
}
