import { ApiProperty } from '@nestjs/swagger';
import type { AppConfig } from '../config/app-config';
import type { MediaKind } from './media.entity';
import { IMAGE_MIME_TYPES } from './sniff';

/** The media limits in the `sync` reply, so that clients can check before uploading. */
export class MediaLimits {
  @ApiProperty() max_image_bytes: number;
  @ApiProperty() max_file_bytes: number;
  /** Sniffed types an `image` upload may be. */
  @ApiProperty({ type: [String] }) image_types: string[];
}

type MediaSettings = Pick<AppConfig, 'messaging'>;

export function mediaLimits(config: MediaSettings): MediaLimits {
  const { maxImageBytes, maxFileBytes } = config.messaging.media;
  return { max_image_bytes: maxImageBytes, max_file_bytes: maxFileBytes, image_types: [...IMAGE_MIME_TYPES] };
}

/** The largest upload of a kind, in bytes. */
export function uploadLimitFor(config: MediaSettings, kind: MediaKind): number {
  const { maxImageBytes, maxFileBytes } = config.messaging.media;
  return kind === 'image' ? maxImageBytes : maxFileBytes;
}

export function tooLargeMessage(config: MediaSettings, kind: MediaKind): string {
  return `file: larger than the limit of ${uploadLimitFor(config, kind)} bytes for kind "${kind}"`;
}
