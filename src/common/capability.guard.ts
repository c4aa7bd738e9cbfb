import { CanActivate, ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { CapabilityName } from '../config/messaging-config';
import { AppError } from './app-error';
import { ErrorCode } from './error-code';

const CAPABILITY = 'capability';

/** The endpoint belongs to a capability that the operator can close (code 1202). */
export const RequiresCapability = (name: CapabilityName): MethodDecorator & ClassDecorator =>
  SetMetadata(CAPABILITY, name);

@Injectable()
export class CapabilityGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const name = this.reflector.getAllAndOverride<CapabilityName | undefined>(CAPABILITY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (name && !this.config.messaging.capabilities[name])
      throw new AppError(ErrorCode.CAPABILITY_CLOSED, `capability ${name} is closed`);
    return true;
  }
}
