import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { Observable, map } from 'rxjs';
import { success } from '../envelope';
import { RAW_REPLY } from './raw-reply.decorator';
import { setReplyCode } from './reply-code';

/** Wraps every handler's result in the success envelope and answers HTTP 200 (also for POST). */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const response = context.switchToHttp().getResponse<Response>();
    response.status(200);
    setReplyCode(response, 0);
    const raw = this.reflector.getAllAndOverride<boolean>(RAW_REPLY, [context.getHandler(), context.getClass()]);
    return raw ? next.handle() : next.handle().pipe(map((data: unknown) => success(data ?? null)));
  }
}
