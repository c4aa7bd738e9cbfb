import { Module } from '@nestjs/common';
import { FriendsModule } from '../friends/friends.module';
import { ImTokenModule } from '../im-token/im-token.module';
import { ProfileController } from './profile.controller';
import { ProfileService } from './profile.service';

/** The SDK user's own profile and other users' public profiles. */
@Module({
  imports: [ImTokenModule, FriendsModule],
  controllers: [ProfileController],
  providers: [ProfileService],
})
export class ProfileModule {}
