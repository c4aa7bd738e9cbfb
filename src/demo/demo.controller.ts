import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { AppError } from '../common/app-error';
import { ErrorCode } from '../common/error-code';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { DemoFile, DemoFiles, IMPORT_MAP_HASH } from './demo-files';

/**
 * The demo chat at /demo: a development aid that uses the Web SDK and the bundled host
 * application's login. Off (404) in production and whenever the host application is off.
 */
@ApiExcludeController()
@Controller('demo')
export class DemoController {
  constructor(
    private readonly files: DemoFiles,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get()
  page(@Res() response: Response): void {
    this.available();
    if (!this.files.sdkBuilt)
      throw new AppError(ErrorCode.INVALID_PARAMETER, 'demo: build the Web SDK first (npm run sdk:build)', 404);
    this.send(response, this.files.page());
  }

  @Get('assets/*path')
  asset(@Param('path') path: string[], @Res() response: Response): void {
    this.available();
    this.send(response, this.files.asset(path.join('/')));
  }

  @Get('sdk/*path')
  sdk(@Param('path') path: string[], @Res() response: Response): void {
    this.available();
    this.send(response, this.files.sdkModule(path.join('/')));
  }

  @Get('vendor/socket.io-client.js')
  socketIo(@Res() response: Response): void {
    this.available();
    this.send(response, this.files.socketIoClient());
  }

  private available(): void {
    if (this.config.nodeEnv === 'production' || !this.config.hostApp.enabled)
      throw new AppError(ErrorCode.INVALID_PARAMETER, 'demo: not available here', 404);
  }

  private send(response: Response, file: DemoFile | undefined): void {
    if (!file) throw new AppError(ErrorCode.INVALID_PARAMETER, 'path: no such demo file', 404);
    response.set({
      'Content-Security-Policy': `default-src 'self'; script-src 'self' '${IMPORT_MAP_HASH}'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'`,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Content-Type': file.contentType,
    });
    response.send(file.body);
  }
}
