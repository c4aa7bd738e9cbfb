import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ConversationsModule } from '../conversations/conversations.module';
import { ImTokenModule } from '../im-token/im-token.module';
import { MediaLinkEntity } from './media-link.entity';
import { MediaController } from './media.controller';
import { MediaEntity } from './media.entity';
import { MediaRepository } from './media.repository';
import { MediaAttachments } from './media-attachments.service';
import { MediaErasure } from './media-erasure.service';
import { ConversationViewsModule } from '../conversation-views/conversation-views.module';
import { MediaService } from './media.service';
import { LocalDiskStorage } from './storage/local-disk-storage';
import { MediaStorage } from './storage/media-storage';
import type { S3Storage } from './storage/s3-storage';
import { UploadErrorsInterceptor } from './upload-errors.interceptor';
import { uploadMulterOptions } from './upload-options';

/** The driver MEDIA_STORAGE names, checked before the application serves (a bad MEDIA_DIR or bucket stops the boot). */
async function mediaStorage(config: AppConfig): Promise<MediaStorage> {
  const settings = config.messaging.media.storage;
  let storage: LocalDiskStorage | S3Storage;
  if (settings.driver === 's3') {
    // Loaded only when used: the AWS SDK costs about 100 ms and 20 MB of memory at start.
    const { S3Storage: Driver } = await import('./storage/s3-storage');
    storage = new Driver(settings);
  } else {
    storage = new LocalDiskStorage(config.messaging.media.dir);
  }
  await storage.prepare();
  return storage;
}

/**
 * Uploaded images and files, their storage driver and access checks. The storage driver is
 * bound to {@link MediaStorage}: local disk (one instance) or an S3-compatible bucket.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([MediaEntity, MediaLinkEntity]),
    MulterModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => uploadMulterOptions(config),
    }),
    ImTokenModule,
    ConversationsModule,
    ConversationViewsModule,
  ],
  controllers: [MediaController],
  providers: [
    MediaRepository,
    MediaService,
    MediaAttachments,
    MediaErasure,
    UploadErrorsInterceptor,
    { provide: MediaStorage, inject: [APP_CONFIG], useFactory: (config: AppConfig) => mediaStorage(config) },
  ],
  // MediaErasure: the server API's user erasure.
  exports: [MediaAttachments, MediaStorage, MediaErasure],
})
export class MediaModule {}
