import { UseGuards, UseInterceptors, applyDecorators } from '@nestjs/common';
import { ApiForbiddenResponse, ApiTags, ApiTooManyRequestsResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { ErrorCode } from '../common/error-code';
import { errorEnvelopeSchema } from '../common/openapi/api-envelope';
import { HostSessionGuard } from './host-session.guard';
import { RetryAfterInterceptor } from './retry-later';

/**
 * The host application's controller: HostSessionGuard, tag `host application`, and the guard's
 * HTTP 401 / 403 envelopes. Authentication is the PHPSID session only (cookie or header).
 */
export function HostAppApi(): ClassDecorator {
  return applyDecorators(
    ApiTags('host application'),
    UseGuards(HostSessionGuard),
    UseInterceptors(RetryAfterInterceptor),
    ApiUnauthorizedResponse({
      description:
        'Not logged in: no PHPSID cookie or header (1101), or a malformed, unknown or expired session (1102); a failed login answers 1102.',
      schema: errorEnvelopeSchema([ErrorCode.TOKEN_MISSING, ErrorCode.TOKEN_INVALID], ErrorCode.TOKEN_MISSING),
    }),
    ApiForbiddenResponse({
      description:
        "A write authenticated by cookie (or not at all) from another site: an Origin other than the request's own, PUBLIC_BASE_URL or CORS_ORIGINS (1004).",
      schema: errorEnvelopeSchema([ErrorCode.INVALID_PARAMETER], ErrorCode.INVALID_PARAMETER),
    }),
  );
}

/** HTTP 429 with `Retry-After` (seconds) and 1005: an SMS or login limit per phone number or address. */
export function RetryLaterResponse(): MethodDecorator {
  return ApiTooManyRequestsResponse({
    description: 'Too many requests: wait `Retry-After` seconds (1005).',
    headers: { 'Retry-After': { description: 'Seconds until the limit resets.', schema: { type: 'integer' } } },
    schema: errorEnvelopeSchema([ErrorCode.TOO_FAST], ErrorCode.TOO_FAST),
  });
}
