import { StreamableFile } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { contentDisposition } from './file-name';
import type { MediaEntity, MediaKind } from './media.entity';
import { contentTypeFor, extensionFor } from './sniff';

export const MEDIA_PATH = '/app/sdk/media';

export interface MediaReply {
  media_id: string;
  kind: MediaKind;
  mime_type: string;
  size: number;
  file_name: string;
  /** Relative download URL; it needs the IM token like every SDK endpoint. */
  url: string;
  created_at: number;
}

export interface MediaUploadReply {
  media: MediaReply;
}

export function toMediaReply(media: MediaEntity): MediaReply {
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
