import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { bearerCredential } from '../common/bearer';
import { ErrorCode } from '../common/error-code';
import { AuthenticatedRequest } from '../common/auth-user';
import { ActivityTracker } from '../analytics/activity-tracker.service';
import { ImTokenService } from './im-token.service';

/** SDK endpoints: accepts only an IM token (never the host secret). */
@Injectable()
export class ImTokenGuard implements CanActivate {
  constructor(
    private readonly tokens: ImTokenService,
    private readonly activity: ActivityTracker,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const token = bearerCredential(request);
    if (!token) throw new AppError(ErrorCode.TOKEN_MISSING, 'token missing: send Authorization: Bearer <IM token>');
    const verified = await this.tokens.authenticate(token);
    request.authUser = { ...verified.user, tokenVersion: verified.tokenVersion };
    // Memory only: the tracker writes in batches (DAU/MAU, last_active_at).
    this.activity.seen(verified.user.internalId);
    return true;
  }
}
