import { Module } from '@nestjs/common';
import { SecretGuard } from '../auth/secret.guard';
import { UserErasureModule } from './user-erasure.module';

/**
 * The server API: endpoints a host backend calls with the SDK secret to act on its users'
 * conversations (sends, notices, groups, friendships, listings, erasure, export).
 */
@Module({
  imports: [UserErasureModule],
  controllers: [],
  providers: [SecretGuard],
})
export class ServerApiModule {}
