import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { Required } from '../common/validation/presence.decorators';
import { RefuseUnknownFields } from '../common/validation/unknown-fields.decorator';
import { ADMIN_LOCALES, AdminLocale } from './admin-locales';

@RefuseUnknownFields()
export class SetAdminLocaleDto {
  @ApiProperty({ enum: ADMIN_LOCALES, description: "The console's language for the signed-in administrator." })
  @Required()
  @IsIn(ADMIN_LOCALES, { message: `locale must be one of ${ADMIN_LOCALES.join(', ')}` })
  locale: AdminLocale;
}
