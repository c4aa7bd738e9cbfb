import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { buildDataSourceOptions } from './data-source-options';
import { DatabaseLimits } from './database-limits';
import { TransactionRunner } from './transaction-runner';

@Global()
@Module({})
export class DatabaseModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRoot({
          ...buildDataSourceOptions(config.database, [], config.operations.database),
          autoLoadEntities: true,
          migrationsRun: config.migrationsRun,
          // main.ts waits for the database before the application is built (waitForDatabase);
          // these attempts only cover it going away in between.
          retryAttempts: config.nodeEnv === 'test' ? 1 : 3,
          retryDelay: 1000,
        }),
      ],
      providers: [TransactionRunner, DatabaseLimits],
      exports: [TransactionRunner],
    };
  }
}
