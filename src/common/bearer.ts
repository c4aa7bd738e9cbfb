import type { Request } from 'express';

/** The credential of an `Authorization: Bearer <value>` header, or null when there is none. */
export function bearerCredential(request: Request): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header);
  return match ? match[1] : null;
}
