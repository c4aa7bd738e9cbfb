import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { Optional } from '../../common/validation/presence.decorators';
import type { MediaKind } from '../media.entity';

export const MEDIA_KINDS: readonly MediaKind[] = ['image', 'file'];

/** The text fields of the multipart upload (the file itself is the `file` part). */
export class UploadMediaDto {
  @ApiPropertyOptional({
    enum: MEDIA_KINDS,
    default: 'file',
    description: '"image" requires a PNG, JPEG, GIF, WebP or BMP (sniffed from the bytes).',
  })
  @Optional()
  @IsIn(MEDIA_KINDS, { message: 'kind must be "image" or "file"' })
  kind?: MediaKind | null;
}
