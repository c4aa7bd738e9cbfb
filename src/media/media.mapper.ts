import { StreamableFile } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import type { Readable } from 'node:stream';
import { MEDIA_KINDS } from './dto/upload-media.dto';
import { contentDisposition } from './file-name';
import type { MediaEntity, MediaKind } from './media.entity';
import { contentTypeFor, extensionFor } from './sniff';
import type * as contract from '../contract';

export const MEDIA_PATH = '/app/sdk/media';

export class MediaReply {
  @ApiProperty({ example: '42' }) media_id: string;
  @ApiProperty({ enum: MEDIA_KINDS }) kind: MediaKind;
  @ApiProperty({ description: 'Sniffed from the bytes (the client type and name are ignored).', example: 'image/png' })
  mime_type: string;
  @ApiProperty({ description: 'Bytes.' }) size: number;
  @ApiProperty({
    description: 'The client file name: last path segment, control characters removed, ≤255 characters; "" when none.',
  })
  file_name: string;
  @ApiProperty({ example: '/app/sdk/media/42', description: 'Download path (needs the IM token).' }) url: string;
  @ApiProperty({ description: 'Unix ms.' }) created_at: number;
}

export class MediaUploadReply {
  @ApiProperty({ type: MediaReply }) media: MediaReply;
}

export function toMediaReply(media: MediaEntity): contract.MediaReply {
  return {
    media_id: media.id,
    kind: media.kind,
    mime_type: media.mimeType,
    size: media.size,
    file_name: media.fileName,
    url: `${MEDIA_PATH}/${media.id}`,
    created_at: media.createdAt,
  };
}

/**
 * The download reply: the sniffed type, the exact length, and a disposition with the stored
 * name (or `media-<id>.<ext>` when there is none). Images are shown inline, everything else is
 * an attachment.
 */
export function toMediaDownload(media: MediaEntity, stream: Readable): StreamableFile {
  const name = media.fileName || `media-${media.id}${extensionFor(media.mimeType)}`;
  return new StreamableFile(stream, {
    type: contentTypeFor(media.mimeType),
    length: media.size,
    disposition: contentDisposition(media.kind === 'image' ? 'inline' : 'attachment', name),
  });
}
