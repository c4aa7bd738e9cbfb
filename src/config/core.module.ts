import { DynamicModule, Global, Module } from '@nestjs/common';
import { Clock, SystemClock } from '../common/clock';
import { CursorCodec } from '../common/pagination/cursor';
import { APP_CONFIG, AppConfig } from './app-config';

/** The validated configuration, the clock and the list-cursor codec, available to every module. */
@Global()
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig, clock: Clock = new SystemClock()): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: Clock, useValue: clock },
        { provide: CursorCodec, useValue: new CursorCodec(config.jwtSecret) },
      ],
      exports: [APP_CONFIG, Clock, CursorCodec],
    };
  }
}
