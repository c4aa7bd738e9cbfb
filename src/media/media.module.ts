import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MediaLinkEntity } from './media-link.entity';
import { MediaEntity } from './media.entity';

/** Uploaded images and files, their storage driver and access checks. */
@Module({
  imports: [TypeOrmModule.forFeature([MediaEntity, MediaLinkEntity])],
})
export class MediaModule {}
