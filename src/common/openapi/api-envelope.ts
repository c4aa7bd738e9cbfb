import { Type, applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, SchemaObject, getSchemaPath } from '@nestjs/swagger';
import { ErrorCode } from '../error-code';
import { ERROR_CODE_MEANINGS } from './error-meanings';

/** Each code once, ascending, as the document lists them. */
function sorted(codes: readonly ErrorCode[]): ErrorCode[] {
  return [...new Set(codes)].sort((a, b) => a - b);
}

/** The Markdown list of `codes` with their meanings. */
export function describeCodes(codes: readonly ErrorCode[]): string {
  return sorted(codes)
    .map((code) => `- \`${code}\`: ${ERROR_CODE_MEANINGS[code] ?? ''}`)
    .join('\n');
}

/** The envelope of a refusal: one of `codes`, `data` null. For endpoints whose success is not an envelope. */
export function errorEnvelopeSchema(codes: readonly ErrorCode[], example: ErrorCode): SchemaObject {
  return {
    type: 'object',
    required: ['code', 'msg', 'data'],
    properties: {
      code: { type: 'integer', enum: sorted(codes), example },
      msg: { type: 'string' },
      data: { type: 'object', nullable: true, example: null },
    },
  };
}

/**
 * Documents a reply wrapped in the `{code, msg, data}` envelope, and the business codes the
 * endpoint can answer (with HTTP 200, except 1500): `code` is one of them or 0. `codes` come
 * from ENDPOINT_ERRORS.
 */
export function ApiEnvelope(data: Type<unknown>, codes: readonly ErrorCode[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ApiExtraModels(data),
    ApiOkResponse({
      description: `Envelope; \`code\` 0 with \`msg\` "ok" on success, otherwise \`data\` is null. Codes:\n${describeCodes(codes)}`,
      schema: {
        type: 'object',
        required: ['code', 'msg', 'data'],
        properties: {
          code: { type: 'integer', enum: [ErrorCode.OK, ...sorted(codes)], example: 0 },
          msg: { type: 'string', example: 'ok' },
          data: { allOf: [{ $ref: getSchemaPath(data) }], nullable: true },
        },
      },
    }),
  );
}
