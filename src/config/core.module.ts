import { DynamicModule, Global, Module } from '@nestjs/common';
import { Clock, SystemClock } from '../common/clock';
import { APP_CONFIG, AppConfig } from './app-config';

/** The validated configuration and the clock, available to every module. */
@Global()
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig, clock: Clock = new SystemClock()): DynamicModule {
    return {
      module: CoreModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: Clock, useValue: clock },
      ],
      exports: [APP_CONFIG, Clock],
    };
  }
}
