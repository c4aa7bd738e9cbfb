import { Module } from '@nestjs/common';
import { ImTokenModule } from '../im-token/im-token.module';
import { AuthService } from './auth.service';
import { HostUsersController } from './host-users.controller';
import { SecretGuard } from './secret.guard';

@Module({
  imports: [ImTokenModule],
  controllers: [HostUsersController],
  providers: [AuthService, SecretGuard],
})
export class AuthModule {}
