import { Global, Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';
import { Lifecycle } from './lifecycle';

@Global()
@Module({ controllers: [HealthController], providers: [HealthService, Lifecycle], exports: [Lifecycle] })
export class HealthModule {}
