import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../app-error';
import { printableName } from '../validation/printable-name';
import { isRoomCallback } from './paths';

/** Spec 4: "page, offset and limit are not supported". */
const REFUSED = ['page', 'offset', 'limit'] as const;

const HINT =
  'is not supported: lists page by cursor (pass next_cursor unchanged as cursor), message history by sequence (before_seq / after_seq)';

/** `limit`, `limit[]` and `limit[x]` all name `limit`, whichever query parser produced the key. */
function refusedName(key: string): string | null {
  const bracket = key.indexOf('[');
  const name = bracket === -1 ? key : key.slice(0, bracket);
  return (REFUSED as readonly string[]).includes(name) ? name : null;
}

/**
 * `cursor[]=a` and `cursor[x]=a` reach no DTO under the simple query parser (the key is
 * `cursor[]`, which the whitelist drops), so the first page would answer a client that sent a
 * cursor. Every query field is a single value: a bracketed key is refused, naming the field.
 */
function firstBracketed(query: unknown): string | null {
  if (query === null || typeof query !== 'object') return null;
  for (const key of Object.keys(query)) {
    const bracket = key.indexOf('[');
    if (bracket > 0) return key.slice(0, bracket);
  }
  return null;
}

function firstRefused(source: unknown): string | null {
  if (source === null || typeof source !== 'object' || Array.isArray(source)) return null;
  for (const key of Object.keys(source)) {
    const name = refusedName(key);
    if (name) return name;
  }
  return null;
}

/**
 * Refuses `page`, `offset` and `limit` in the query string of every route and at the top level
 * of every JSON body (1004 naming the field), rather than ignoring them: a client sending them
 * expects a page size or position that the reply would silently not have. A bracketed query key
 * (`cursor[]`, `cursor[x]`) is refused the same way. Placed after the
 * JSON parser so the body is parsed. The room callback (raw, signed body; provider reply
 * format) and static assets are left alone.
 */
export function refusePaginationParams(request: Request, _response: Response, next: NextFunction): void {
  if (isRoomCallback(request) || request.path.startsWith('/static/')) return next();
  const field = firstRefused(request.query) ?? firstRefused(request.body);
  if (field) return next(AppError.invalid(field, HINT));
  const bracketed = firstBracketed(request.query);
  if (bracketed)
    return next(
      AppError.invalid(printableName(bracketed), 'must be a single value: [] and [key] forms are not supported'),
    );
  next();
}
