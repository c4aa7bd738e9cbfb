import type { Response } from 'express';

/** The envelope `code` a reply carried, kept on the response for the request metrics and log line. */
export function setReplyCode(response: Response, code: number): void {
  response.locals.replyCode = code;
}

export function replyCode(response: Response): number | undefined {
  const code: unknown = response.locals?.replyCode;
  return typeof code === 'number' ? code : undefined;
}
