import {
  Body,
  Controller,
  Get,
  Header,
  Param,
  Post,
  StreamableFile,
  UploadedFile,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import {
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import { RequiresCapability } from '../common/capability.guard';
import { RawReply } from '../common/http/raw-reply.decorator';
import { ApiEnvelope, describeCodes, errorEnvelopeSchema } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { ErrorCode } from '../common/error-code';
import { AuthUser } from '../common/auth-user';
import { CurrentUser } from '../im-token/current-user.decorator';
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
      properties: {
        [UPLOAD_FILE_FIELD]: { type: 'string', format: 'binary' },
        kind: { type: 'string', enum: [...MEDIA_KINDS], default: 'file' },
      },
    },
  })
  @ApiEnvelope(MediaUploadReply, ENDPOINT_ERRORS.media.upload)
  upload(
    @CurrentUser() user: AuthUser,
    @UploadedFile() file: ReceivedFile | undefined,
    @Body() dto: UploadMediaDto,
  ): Promise<MediaUploadReply> {
    return this.media.upload(user, file, dto);
  }

  @Get(':media_id')
  @RawReply()
  @Header('Cache-Control', MEDIA_CACHE_CONTROL)
  @Header('X-Content-Type-Options', 'nosniff')
  @Header('Content-Security-Policy', 'sandbox')
  @ApiOperation({
    summary:
      'Download media: for the uploader and for whoever may see a message that carries it (recalled and deleted messages carry nothing).',
    description:
      'Success streams the bytes with the sniffed Content-Type, Content-Length, X-Content-Type-Options: nosniff, Content-Disposition (inline for images, attachment otherwise, name in filename*) ' +
      `and Cache-Control: ${MEDIA_CACHE_CONTROL}. A failure is the JSON envelope with no-store: 1004 for a malformed ID, 1207 for media that is absent or not accessible (the same answer).`,
  })
  @ApiParam({ name: 'media_id', description: 'Decimal media ID from the upload reply.', example: '42' })
  @ApiProduces(...IMAGE_MIME_TYPES, 'application/octet-stream', 'application/json')
  @ApiOkResponse({
    description: `The bytes; or, on failure, the envelope {code, msg, data: null}. Codes:\n${describeCodes(ENDPOINT_ERRORS.media.download)}`,
    content: {
      'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
      'application/json': { schema: errorEnvelopeSchema(ENDPOINT_ERRORS.media.download, ErrorCode.MESSAGE_ABSENT) },
    },
  })
  download(@CurrentUser() user: AuthUser, @Param('media_id') mediaId: string): Promise<StreamableFile> {
    return this.media.download(user, mediaId);
  }
}
