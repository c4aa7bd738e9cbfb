import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { AppError } from '../common/app-error';
import { ErrorCode } from '../common/error-code';
import { ConsoleAsset, ConsoleAssets } from './console-assets';

/**
 * The console pages get a strict policy: scripts and styles from this origin only (no inline
 * code, no eval), never framed, no referrer; the data comes from /app/admin/* with the session
 * cookie, and is written into the page as text, never as markup. Images may also come from any
 * https origin: users' avatars are the host's URLs (shown without a referrer; plain http ones are
 * listed as text, not loaded into an https page).
 */
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; connect-src 'self'; " +
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

@ApiExcludeController()
@Controller('admin')
export class AdminConsoleController {
  constructor(private readonly assets: ConsoleAssets) {}

  @Get()
  index(@Res() response: Response): void {
    send(response, this.assets.get('index.html'));
  }

  @Get('assets/*path')
  asset(@Param('path') path: string[] | string, @Res() response: Response): void {
    send(response, this.assets.get(Array.isArray(path) ? path.join('/') : path));
  }
}

function send(response: Response, asset: ConsoleAsset | undefined): void {
  if (!asset) throw new AppError(ErrorCode.INVALID_PARAMETER, 'path: no such console file', 404);
  response.set(SECURITY_HEADERS);
  response.set('Content-Type', asset.contentType);
  response.send(asset.body);
}
