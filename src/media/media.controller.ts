import { Body, Controller, Get, Header, Param, Post, StreamableFile, UploadedFile, UseGuards, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiProperty, ApiTags } from '@nestjs/swagger';
import { RequiresCapability } from '../common/capability.guard';
import { RawReply } from '../common/http/raw-reply.decorator';
import { ApiEnvelope } from '../common/openapi';
import { AuthUser, CurrentUser } from '../im-token/auth-user';
import { ImTokenGuard } from '../im-token/im-token.guard';
import { RateLimitGuard, RateLimited } from '../common/rate-limit/rate-limit.guard';
import { MEDIA_KINDS, UploadMediaDto } from './dto/upload-media.dto';
import { MediaUploadReply } from './media.mapper';
import { MediaService, ReceivedFile } from './media.service';
import { IMAGE_MIME_TYPES } from './sniff';
import { UploadErrorsInterceptor } from './upload-errors.interceptor';
import { UPLOAD_FILE_FIELD } from './upload-options';

/** Media bytes never change under an ID, but access is per user: private caches only. */
export const MEDIA_CACHE_CONTROL = 'private, max-age=86400';

class MediaDoc {
  @ApiProperty({ example: '42' }) media_id: string;
  @ApiProperty({ enum: MEDIA_KINDS }) kind: string;
  @ApiProperty({ description: 'Sniffed from the bytes (the client type and name are ignored).', example: 'image/png' }) mime_type: string;
  @ApiProperty({ description: 'Bytes.' }) size: number;
  @ApiProperty({ description: 'The client file name: last path segment, control characters removed, ≤255 characters; "" when none.' }) file_name: string;
  @ApiProperty({ example: '/app/sdk/media/42', description: 'Download path (needs the IM token).' }) url: string;
  @ApiProperty({ description: 'Unix ms.' }) created_at: number;
}

class MediaUploadDoc {
  @ApiProperty({ type: MediaDoc }) media: MediaDoc;
}

const MEDIA_CODES = [1003, 1004, 1101, 1102, 1103, 1202, 1500];

@ApiTags('sdk')
@ApiBearerAuth('im-token')
@UseGuards(ImTokenGuard, RateLimitGuard)
@RequiresCapability('media')
@Controller('app/sdk/media')
export class MediaController {
  constructor(private readonly media: MediaService) {}

  @Post('upload')
  @RateLimited('media_upload')
  @UseInterceptors(UploadErrorsInterceptor, FileInterceptor(UPLOAD_FILE_FIELD))
  @ApiOperation({
    summary: 'Upload an image or a file (multipart/form-data: one file part "file", optional text field "kind").',
    description:
      'The type is sniffed from the bytes. kind "image" must be PNG, JPEG, GIF, WebP or BMP and at most max_image_bytes; kind "file" (default) at most max_file_bytes (see the media limits of sync). ' +
      'Empty files, a missing or second file, other file fields and non-multipart bodies are refused with 1004 naming the field.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: [UPLOAD_FILE_FIELD],
      properties: { [UPLOAD_FILE_FIELD]: { type: 'string', format: 'binary' }, kind: { type: 'string', enum: [...MEDIA_KINDS], default: 'file' } },
    },
  })
  @ApiEnvelope(MediaUploadDoc, MEDIA_CODES)
  upload(@CurrentUser() user: AuthUser, @UploadedFile() file: ReceivedFile | undefined, @Body() dto: UploadMediaDto): Promise<MediaUploadReply> {
    return this.media.upload(user, file, dto);
  }

  @Get(':media_id')
  @RawReply()
  @Header('Cache-Control', MEDIA_CACHE_CONTROL)
  @Header('X-Content-Type-Options', 'nosniff')
  @Header('Content-Security-Policy', 'sandbox')
  @ApiOperation({
    summary: 'Download media: for the uploader and for whoever may see a message that carries it (recalled and deleted messages carry nothing).',
    description:
      'Success streams the bytes with the sniffed Content-Type, Content-Length, X-Content-Type-Options: nosniff, Content-Disposition (inline for images, attachment otherwise, name in filename*) ' +
      `and Cache-Control: ${MEDIA_CACHE_CONTROL}. A failure is the JSON envelope with no-store: 1004 for a malformed ID, 1207 for media that is absent or not accessible (the same answer).`,
  })
  @ApiParam({ name: 'media_id', description: 'Decimal media ID from the upload reply.', example: '42' })
  @ApiProduces(...IMAGE_MIME_TYPES, 'application/octet-stream', 'application/json')
  @ApiOkResponse({
    description: `The bytes; or, on failure, the envelope {code, msg, data: null} with one of: ${[...MEDIA_CODES, 1207].join(', ')}.`,
    content: {
      'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
      'application/json': {
        schema: { type: 'object', required: ['code', 'msg', 'data'], properties: { code: { type: 'integer', example: 1207 }, msg: { type: 'string' }, data: { type: 'object', nullable: true, example: null } } },
      },
    },
  })
  download(@CurrentUser() user: AuthUser, @Param('media_id') mediaId: string): Promise<StreamableFile> {
    return this.media.download(user, mediaId);
  }
}
