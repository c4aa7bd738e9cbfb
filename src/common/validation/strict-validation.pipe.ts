import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
import type { ValidatorOptions } from 'class-validator';
import { AppError } from '../app-error';
import { ErrorCode } from '../error-code';
import { findJsonProblem } from '../text';
import { DtoType, findOversizedList } from './oversized-lists';
import { printableName } from './printable-name';
import { nameUnknownFields, unknownFieldNoun } from './unknown-fields.decorator';

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Picks the most telling message of the first failing field, with its full path. */
export function describeValidationErrors(errors: ValidationError[], parent = ''): string {
  for (const error of errors) {
    const path = parent ? `${parent}.${printableName(error.property)}` : printableName(error.property);
    if (error.constraints) {
      const constraints = error.constraints;
      const message =
        constraints.isDefined ??
        constraints.sentTogether ??
        constraints.whitelistValidation ??
        Object.values(constraints)[0];
      // class-validator messages start with the property name; show the full path instead.
      if (message.startsWith(`${error.property} `)) return `${path}: ${message.slice(error.property.length + 1)}`;
      // An array rule names its item, e.g. "member_ids[0] must be a string".
      const item = new RegExp(`^${escapeRegExp(error.property)}((?:\\[\\d+\\])+) `).exec(message);
      if (item) return `${path}${item[1]}: ${message.slice(item[0].length)}`;
      return `${path}: ${message}`;
    }
    if (error.children?.length) return describeValidationErrors(error.children, path);
  }
  return 'request: invalid parameters';
}

const PRIMITIVES: unknown[] = [String, Boolean, Number, Array, Object];

/**
 * The one global pipe: whitelist, transform, and no implicit conversion, so "true" and 1 are
 * not booleans and "1" is not an integer. Every refusal is an {@link AppError} with code 1004
 * whose message names the field. Unknown keys are dropped, except in a DTO marked
 * {@link RefuseUnknownFields}, where they are refused by name.
 */
@Injectable()
export class StrictValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: false,
      transform: true,
      transformOptions: { enableImplicitConversion: false },
      forbidUnknownValues: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors: ValidationError[]) =>
        new AppError(ErrorCode.INVALID_PARAMETER, describeValidationErrors(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const isDto = typeof metadata.metatype === 'function' && !PRIMITIVES.includes(metadata.metatype);
    if (isDto && (metadata.type === 'body' || metadata.type === 'query')) {
      // No JSON parser ran: the request was not sent as application/json.
      if (value === undefined && metadata.type === 'body') {
        throw new AppError(ErrorCode.INVALID_PARAMETER, 'body: send a JSON object with Content-Type: application/json');
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw new AppError(
          ErrorCode.INVALID_PARAMETER,
          `${metadata.type === 'body' ? 'body' : 'query'}: must be a JSON object`,
        );
      }
      const oversized = findOversizedList(metadata.metatype as DtoType, value as Record<string, unknown>);
      if (oversized) throw new AppError(ErrorCode.INVALID_PARAMETER, describeValidationErrors([oversized]));
      const problem = findJsonProblem(value);
      if (problem) throw new AppError(ErrorCode.INVALID_PARAMETER, problem);
    }
    return super.transform(value, metadata);
  }

  protected override async validate(object: object, options?: ValidatorOptions): Promise<ValidationError[]> {
    if (unknownFieldNoun(object.constructor) === undefined) return super.validate(object, options);
    const errors = await super.validate(object, { ...options, forbidNonWhitelisted: true });
    nameUnknownFields(errors, object);
    return errors;
  }
}
