import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { Optional } from '../common/validation/presence.decorators';

export const ANALYTICS_RANGES = ['30d', '90d'] as const;
export type AnalyticsRange = (typeof ANALYTICS_RANGES)[number];

export class AnalyticsQueryDto {
  @ApiPropertyOptional({ enum: ANALYTICS_RANGES, description: 'Days of daily series (default 30d).' })
  @Optional()
  @IsIn(ANALYTICS_RANGES, { message: 'range must be 30d or 90d' })
  range?: AnalyticsRange;
}
