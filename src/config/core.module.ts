import { DynamicModule, Global, Module } from '@nestjs/common';
import { Clock, SystemClock } from '../common/clock';
import type { Logger as PinoRoot } from 'pino';
import { ROOT_LOGGER } from '../common/logging/root-logger.token';
import { CursorCodec } from '../common/pagination/cursor';
import { APP_CONFIG, AppConfig } from './app-config';

/** The validated configuration, the clock, the list-cursor codec and the root logger, available to every module. */
@Global()
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig, root: PinoRoot, clock: Clock = new SystemClock()): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: Clock, useValue: clock },
        { provide: CursorCodec, useValue: new CursorCodec(config.jwtSecret) },
        { provide: ROOT_LOGGER, useValue: root },
      ],
      exports: [APP_CONFIG, Clock, CursorCodec, ROOT_LOGGER],
    };
  }
}
