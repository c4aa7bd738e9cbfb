import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ImTokenModule } from '../im-token/im-token.module';
import { ClientErrorSubmissionEntity } from './client-error-submission.entity';
import { ClientErrorEntity } from './client-error.entity';
import { ClientErrorRecordsService } from './client-error-records.service';
import { ClientErrorsController } from './client-errors.controller';
import { ClientErrorsRepository } from './client-errors.repository';
import { ClientErrorsService } from './client-errors.service';

@Module({
  imports: [TypeOrmModule.forFeature([ClientErrorEntity, ClientErrorSubmissionEntity]), ImTokenModule],
  controllers: [ClientErrorsController],
  providers: [ClientErrorsRepository, ClientErrorsService, ClientErrorRecordsService],
  exports: [ClientErrorRecordsService],
})
export class ClientErrorsModule {}
