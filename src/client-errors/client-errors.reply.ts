import { ApiProperty } from '@nestjs/swagger';

export class ClientErrorReply {
  @ApiProperty({ description: 'ID of the stored or merged record; may differ from the submitted one.' })
  event_id: string;
  @ApiProperty({ description: 'Occurrences accumulated in that record.', example: 1 }) occurrence_count: number;
}
