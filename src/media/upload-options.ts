import type { MulterModuleOptions } from '@nestjs/platform-express';
import type { AppConfig } from '../config/app-config';

/** The one file part and the text fields the upload form may carry. */
export const UPLOAD_FILE_FIELD = 'file';
export const UPLOAD_TEXT_FIELDS = ['kind'] as const;

/**
 * multer settings of the upload route. No `dest` and no `storage`: multer keeps the part in
 * memory (bounded by `fileSize`), and the service writes it through MediaStorage once it is
 * checked. `fileSize` lets one byte over the larger limit through, so the exact per-kind
 * boundary is decided (and explained) by the service. Part names are decoded as UTF-8, as
 * browsers send them.
 */
export function uploadMulterOptions(config: AppConfig): MulterModuleOptions {
  const { maxImageBytes, maxFileBytes } = config.messaging.media;
  return {
    limits: {
      fileSize: Math.max(maxImageBytes, maxFileBytes) + 1,
      files: 1,
      fields: 4,
      parts: 6,
      fieldNameSize: 64,
      fieldSize: 256,
      headerPairs: 32,
    },
    preservePath: false,
    defParamCharset: 'utf8',
  };
}
