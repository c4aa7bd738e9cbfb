import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { UsersModule } from '../users/users.module';
import { ImTokenGuard } from './im-token.guard';
import { ImTokenService } from './im-token.service';

/** The IM token, shared by every SDK-facing module (and, next, the real-time gateway). */
@Module({
  imports: [JwtModule.register({}), UsersModule],
  providers: [ImTokenService, ImTokenGuard],
  exports: [ImTokenService, ImTokenGuard, UsersModule],
})
export class ImTokenModule {}
