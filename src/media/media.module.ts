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
import { MediaService } from './media.service';
import { LocalDiskStorage } from './storage/local-disk-storage';
import { MediaStorage } from './storage/media-storage';
import { UploadErrorsInterceptor } from './upload-errors.interceptor';
import { uploadMulterOptions } from './upload-options';

async function localDiskStorage(config: AppConfig): Promise<MediaStorage> {
  const storage = new LocalDiskStorage(config.messaging.media.dir);
  await storage.prepare();
  return storage;
}

/**
 * Uploaded images and files, their storage driver and access checks. The storage driver is
 * bound to {@link MediaStorage}; replace the factory to use another backend.
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([MediaEntity, MediaLinkEntity]),
    MulterModule.registerAsync({ inject: [APP_CONFIG], useFactory: (config: AppConfig) => uploadMulterOptions(config) }),
    ImTokenModule,
    ConversationsModule,
  ],
  controllers: [MediaController],
  providers: [
    MediaRepository,
    MediaService,
    UploadErrorsInterceptor,
    { provide: MediaStorage, inject: [APP_CONFIG], useFactory: (config: AppConfig) => localDiskStorage(config) },
  ],
  exports: [MediaRepository, MediaStorage],
})
export class MediaModule {}
