import { UseGuards, applyDecorators } from '@nestjs/common';
import { ApiForbiddenResponse, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { ErrorCode } from '../common/error-code';
import { errorEnvelopeSchema } from '../common/openapi/api-envelope';
import { AdminGuard } from './admin.guard';

/**
 * Every admin console controller: AdminGuard, tag `admin`, and the guard's HTTP 401 / 403
 * envelopes. Authentication is the ADMIN_SID cookie from POST /app/admin/auth/login only;
 * writes also need `X-Admin-CSRF: 1` and a trusted Origin.
 */
export function AdminApi(): ClassDecorator {
  return applyDecorators(
    ApiTags('admin'),
    UseGuards(AdminGuard),
    ApiUnauthorizedResponse({
      description:
        'No console session (1101), or an unknown, expired or disabled one (1102); the login itself answers 1102 for wrong credentials.',
      schema: errorEnvelopeSchema([ErrorCode.TOKEN_MISSING, ErrorCode.TOKEN_INVALID], ErrorCode.TOKEN_MISSING),
    }),
    ApiForbiddenResponse({
      description:
        'The role is too low, or a write lacks `X-Admin-CSRF: 1` or comes from an untrusted Origin (1004, msg names which).',
      schema: errorEnvelopeSchema([ErrorCode.INVALID_PARAMETER], ErrorCode.INVALID_PARAMETER),
    }),
  );
}
