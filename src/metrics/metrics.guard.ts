import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { AppError } from '../common/app-error';
import { bearerCredential } from '../common/bearer';
import { ErrorCode } from '../common/error-code';
import { secureEqual } from '../common/secure-compare';
import { APP_CONFIG, AppConfig } from '../config/app-config';

/** /metrics takes only its own METRICS_TOKEN (when set): never the SDK secret or an IM token. */
@Injectable()
export class MetricsGuard implements CanActivate {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const expected = this.config.operations.metricsToken;
    if (expected === null) return true;
    const credential = bearerCredential(context.switchToHttp().getRequest<Request>());
    if (credential === null || !secureEqual(credential, expected)) {
      throw new AppError(
        ErrorCode.TOKEN_INVALID,
        'metrics token invalid: send Authorization: Bearer <METRICS_TOKEN>',
        401,
      );
    }
    return true;
  }
}
