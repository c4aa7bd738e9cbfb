import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import express, { NextFunction, Request, Response } from 'express';
import { join } from 'node:path';
import type { Logger as PinoRoot } from 'pino';
import { bodyParserErrors } from './common/http/body-parser-errors';
import { corsFor } from './common/http/cors';
import { routesGuardedBy } from './common/http/guarded-routes';
import { answerMalformedRequests } from './common/http/malformed-request';
import { PinoNestLogger } from './common/logging/pino-nest-logger';
import { createRootLogger } from './common/logging/root-logger';
import { requestContext } from './common/logging/request-context';
import { serverReplyLog } from './common/logging/server-reply-log';
import { refusePaginationParams } from './common/http/pagination-params.middleware';
import { applyServerTimeouts } from './common/http/server-timeouts';
import { ROOM_CALLBACK_BODY_LIMIT, ROOM_CALLBACK_PATH, markRoomCallback } from './common/http/paths';
import { AppConfig } from './config/app-config';
import { configuredSecrets } from './config/secrets';
import { AppModule, AppOverrides } from './app.module';
import { ApiTraffic } from './analytics/api-traffic.service';
import { SecretGuard } from './auth/secret.guard';
import { Lifecycle } from './health/lifecycle';
import { MetricsService } from './metrics/metrics.service';
import { RealtimeIoAdapter } from './realtime/realtime-io.adapter';

/**
 * Builds the application exactly as production runs it; tests use it too. Shutdown on signals
 * is main.ts's (it drains requests first), so no shutdown hooks are enabled here.
 */
export async function createApp(
  config: AppConfig,
  overrides: AppOverrides = {},
  root: PinoRoot = createRootLogger(config.operations.log),
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, overrides, root), {
    bodyParser: false,
    bufferLogs: true,
  });
  app.useLogger(new PinoNestLogger(root));
  // NestFactory.create leaves the start-up buffer attached until told: every later log line
  // would be held in memory and never written.
  app.flushLogs();
  app.useWebSocketAdapter(new RealtimeIoAdapter(app, config));
  app.disable('x-powered-by');
  app.set('trust proxy', config.operations.trustProxy);
  // Every reply is `no-store` (requestContext), so an ETag could never be revalidated; hashing
  // each JSON body for one cost about 2 % of the sync path's CPU.
  app.set('etag', false);
  answerMalformedRequests(app.getHttpServer(), serverReplyLog(root, app.get(MetricsService)));
  applyServerTimeouts(app.getHttpServer(), config.http);

  const lifecycle = app.get(Lifecycle);
  const traffic = app.get(ApiTraffic);
  app.use(
    requestContext(
      root,
      app.get(MetricsService),
      configuredSecrets(config),
      () => lifecycle.shuttingDown,
      (path, status, code) => traffic.record(path, status, code),
    ),
  );
  const cors = corsFor(config.operations.corsOrigins, routesGuardedBy(app, SecretGuard));
  if (cors) app.enableCors(cors);
  // The callback signature covers the exact received bytes, so that route keeps them raw and
  // refuses anything over 64 KiB before reading further.
  // Express matches this mount case-insensitively and with a trailing slash, like the route
  // itself, so the mark (not a path comparison) decides the provider reply format. Compressed
  // bodies are refused: the signature covers the bytes as received.
  app.use(
    ROOM_CALLBACK_PATH,
    (request: Request, _response: Response, next: NextFunction) => {
      markRoomCallback(request);
      next();
    },
    express.raw({ type: () => true, limit: ROOM_CALLBACK_BODY_LIMIT, inflate: false }),
  );
  app.use(
    express.json({ limit: config.bodyLimitBytes, strict: true, type: ['application/json', 'application/*+json'] }),
  );
  app.use(bodyParserErrors);
  app.use(refusePaginationParams);
  app.useStaticAssets(join(__dirname, 'static'), {
    prefix: '/static/',
    index: false,
    setHeaders: (response: Response) => response.setHeader('Cache-Control', 'public, max-age=86400'),
  });

  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('IM SDK service')
      .setDescription(
        'Backend of the embeddable IM SDK. Every JSON reply is `{code, msg, data}` (HTTP 200 for business errors; read `code`), ' +
          'except the room callback, which answers in the provider format. Times are Unix milliseconds except `expire_at` (seconds). ' +
          'IDs are decimal strings.',
      )
      .setVersion('1')
      .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'SDK_SECRET (host backend only)' }, 'sdk-secret')
      .addBearerAuth(
        { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'IM token from POST /app/sdk/token' },
        'im-token',
      )
      .build(),
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json' });
  return app;
}
