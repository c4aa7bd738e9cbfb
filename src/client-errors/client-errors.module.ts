import { Module } from '@nestjs/common';
import { ClientErrorsOfUser } from './client-errors-of-user.service';
import { ClientErrorsOfUserRepository } from './client-errors-of-user.repository';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ImTokenModule } from '../im-token/im-token.module';
import { ClientErrorSubmissionEntity } from './client-error-submission.entity';
import { ClientErrorEntity } from './client-error.entity';
import { ClientErrorRecordsService } from './client-error-records.service';
import { ClientErrorsController } from './client-errors.controller';
import { ClientErrorsRepository } from './client-errors.repository';
import { ClientErrorsService } from './client-errors.service';
import { CLIENT_ERROR_GROUP_ENTITIES } from './client-error-group.entities';
import { ClientErrorGroupsRepository } from './client-error-groups.repository';
import { ClientErrorGroupsService } from './client-error-groups.service';
import { ClientErrorRollupsRepository } from './client-error-rollups.repository';
import { ClientErrorRollups } from './client-error-rollups.service';

@Module({
  imports: [
    TypeOrmModule.forFeature([ClientErrorEntity, ClientErrorSubmissionEntity, ...CLIENT_ERROR_GROUP_ENTITIES]),
    ImTokenModule,
  ],
  controllers: [ClientErrorsController],
  providers: [
    ClientErrorsRepository,
    ClientErrorGroupsRepository,
    ClientErrorRollupsRepository,
    ClientErrorRollups,
    ClientErrorsService,
    ClientErrorRecordsService,
    ClientErrorGroupsService,
    ClientErrorsOfUserRepository,
    ClientErrorsOfUser,
  ],
  exports: [ClientErrorRecordsService, ClientErrorGroupsService, ClientErrorsOfUser],
})
export class ClientErrorsModule {}
