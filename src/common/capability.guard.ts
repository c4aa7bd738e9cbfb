import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { CapabilityName } from '../config/messaging-config';
import { RuntimeSettingsService } from '../settings/runtime-settings.service';
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
    private readonly settings: RuntimeSettingsService,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const name = this.reflector.getAllAndOverride<CapabilityName | undefined>(CAPABILITY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (name && !this.settings.current.capabilities[name])
      throw new AppError(ErrorCode.CAPABILITY_CLOSED, `capability ${name} is closed`);
    return true;
  }
}
