import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ProfileChangeAnnouncer } from './profile-change-announcer';
import { UserAccessEvents } from './user-access-events';
import { UserEntity } from './user.entity';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  imports: [TypeOrmModule.forFeature([UserEntity])],
  providers: [UsersRepository, UsersService, UserAccessEvents, ProfileChangeAnnouncer],
  exports: [UsersService, UserAccessEvents, ProfileChangeAnnouncer],
})
export class UsersModule {}
