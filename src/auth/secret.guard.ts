import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AppError } from '../common/app-error';
import { bearerCredential } from '../common/bearer';
import { ErrorCode } from '../common/error-code';
import { secureEqual } from '../common/secure-compare';
import { APP_CONFIG, AppConfig } from '../config/app-config';

/** Host-backend endpoints: accepts only `Authorization: Bearer <SDK_SECRET>` (never an IM token). */
@Injectable()
export class SecretGuard implements CanActivate {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const credential = bearerCredential(context.switchToHttp().getRequest<Request>());
    if (credential === null || !secureEqual(credential, this.config.sdkSecret)) {
      throw new AppError(ErrorCode.SDK_SECRET_INVALID, 'SDK secret invalid: send Authorization: Bearer <SDK_SECRET>');
    }
    return true;
  }
}
