import {
  CallHandler,
  ExecutionContext,
  HttpException,
  Inject,
  Injectable,
  NestInterceptor,
  PayloadTooLargeException,
} from '@nestjs/common';
import type { Request } from 'express';
import { Observable, catchError, throwError } from 'rxjs';
import { AppError } from '../common/app-error';
import { ErrorCode } from '../common/error-code';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { MediaKind } from './media.entity';
import { tooLargeMessage } from './media-limits';
import { UPLOAD_FILE_FIELD, UPLOAD_TEXT_FIELDS } from './upload-options';

const FORM_SHAPE = `send one file in the form field "${UPLOAD_FILE_FIELD}" and at most the text field${UPLOAD_TEXT_FIELDS.length > 1 ? 's' : ''} ${UPLOAD_TEXT_FIELDS.map((f) => `"${f}"`).join(', ')}`;

/**
 * Problems multer reports as HttpExceptions (the platform's FileInterceptor rewrites multer's
 * codes into messages such as "File too large" or "Unexpected file field - files"). Field
 * names after " - " come from the client and are only echoed when they are ours.
 */
export function describeUploadProblem(error: HttpException, config: AppConfig, kind: MediaKind): string {
  if (error instanceof PayloadTooLargeException) return tooLargeMessage(config, kind);
  const message = error.message;
  const separator = message.lastIndexOf(' - ');
  const reason = separator >= 0 ? message.slice(0, separator) : message;
  const field = separator >= 0 ? message.slice(separator + 3) : '';
  switch (reason) {
    case 'Unexpected file field':
    case 'Too many files':
      return `file: exactly one file is accepted; ${FORM_SHAPE}`;
    case 'Too many parts':
    case 'Too many fields':
      return `file: too many form fields; ${FORM_SHAPE}`;
    case 'Field value too long':
      return (UPLOAD_TEXT_FIELDS as readonly string[]).includes(field)
        ? `${field}: too long`
        : `file: a form field value is too long; ${FORM_SHAPE}`;
    case 'Field name too long':
    case 'Field name missing':
    case 'Field name nesting too deep':
    case 'Field name array index too large':
    case 'Invalid field name':
      return `file: malformed form field name; ${FORM_SHAPE}`;
    default:
      return `file: malformed multipart/form-data body; ${FORM_SHAPE}`;
  }
}

function kindOf(request: Request): MediaKind {
  const body: unknown = request.body;
  const kind = body && typeof body === 'object' ? (body as Record<string, unknown>).kind : undefined;
  return kind === 'image' ? 'image' : 'file';
}

/**
 * Bound before the FileInterceptor of the upload route: every refusal of the multipart
 * parser becomes a 1004 naming the field, and any body that is not multipart/form-data (which
 * the parser would not even start on) is refused up front.
 */
@Injectable()
export class UploadErrorsInterceptor implements NestInterceptor {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const request = context.switchToHttp().getRequest<Request>();
    if (!request.is('multipart/form-data')) {
      return throwError(() => AppError.invalid('Content-Type', `use multipart/form-data; ${FORM_SHAPE}`));
    }
    return next.handle().pipe(
      catchError((error: unknown) => {
        // A client that cancels its upload is routine, not a server failure: it gets (if it still
        // listens) a refusal, and the log has its access line, not an error with a stack.
        if (request.readableAborted || (request.destroyed && !request.complete)) {
          return throwError(() => AppError.invalid('file', 'the upload was aborted by the client'));
        }
        if (error instanceof HttpException && error.getStatus() < 500) {
          return throwError(
            () => new AppError(ErrorCode.INVALID_PARAMETER, describeUploadProblem(error, this.config, kindOf(request))),
          );
        }
        return throwError(() => error);
      }),
    );
  }
}
