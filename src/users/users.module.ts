import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DisableExpiryService } from './disable-expiry.service';
import { ProfileChangeAnnouncer } from './profile-change-announcer';
import { UserAccessEvents } from './user-access-events';
import { UserEntity } from './user.entity';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';
import { UserBrowser } from './user-browser.service';
import { UsersBrowseRepository } from './users-browse.repository';

@Module({
  imports: [TypeOrmModule.forFeature([UserEntity])],
  providers: [
    UsersRepository,
    UsersService,
    UsersBrowseRepository,
    UserBrowser,
    UserAccessEvents,
    ProfileChangeAnnouncer,
    DisableExpiryService,
  ],
  exports: [UsersService, UserBrowser, UserAccessEvents, ProfileChangeAnnouncer],
})
export class UsersModule {}
