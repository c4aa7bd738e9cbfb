import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ServerRequestEntity } from './server-request.entity';
import { ServerRequestsRepository } from './server-requests.repository';
import { ServerRequestsService } from './server-requests.service';

/** The server API's idempotency records (own module so that the retention job can prune them). */
@Module({
  imports: [TypeOrmModule.forFeature([ServerRequestEntity])],
  providers: [ServerRequestsRepository, ServerRequestsService],
  exports: [ServerRequestsService],
})
export class ServerRequestsModule {}
