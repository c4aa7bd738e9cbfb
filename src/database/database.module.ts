import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { buildDataSourceOptions } from './data-source-options';
import { TransactionRunner } from './transaction-runner';

@Global()
@Module({})
export class DatabaseModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRoot({
          ...buildDataSourceOptions(config.database),
          autoLoadEntities: true,
          migrationsRun: config.migrationsRun,
          retryAttempts: config.nodeEnv === 'test' ? 1 : 5,
        }),
      ],
      providers: [TransactionRunner],
      exports: [TransactionRunner],
    };
  }
}
