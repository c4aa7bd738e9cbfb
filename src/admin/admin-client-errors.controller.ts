import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { AdminActor, CurrentAdmin } from './admin-actor';
import { AdminApi } from './admin-api.decorator';
import { AdminClientErrorsService } from './admin-client-errors.service';
import {
  ClientErrorGroupDetailReply,
  ClientErrorGroupPageReply,
  ClientErrorOccurrencePageReply,
} from './admin-client-errors.reply';
import {
  ClientErrorGroupRefDto,
  ClientErrorGroupsQueryDto,
  ClientErrorOccurrencesQueryDto,
} from './admin-client-errors.dto';
import { AdminRoles } from './admin.guard';

/** Client errors grouped by error code, platform and build (read-only, every role). */
@AdminApi()
@Controller('app/admin/client-errors')
export class AdminClientErrorsController {
  constructor(private readonly clientErrors: AdminClientErrorsService) {}

  @Get()
  @AdminRoles('viewer')
  @ApiOperation({
    summary:
      'Client error groups (error code, platform, build) with severity, occurrences, distinct users and devices, first and last seen; filters, sort, cursor paging.',
  })
  @ApiEnvelope(ClientErrorGroupPageReply, ENDPOINT_ERRORS.adminClientErrors.groups)
  groups(
    @CurrentAdmin() actor: AdminActor,
    @Query() dto: ClientErrorGroupsQueryDto,
  ): Promise<ClientErrorGroupPageReply> {
    return this.clientErrors.list(actor, dto);
  }

  @Get('group')
  @AdminRoles('viewer')
  @ApiOperation({ summary: 'One client error group with its occurrences per hour (24 h) and per day (30 days).' })
  @ApiEnvelope(ClientErrorGroupDetailReply, ENDPOINT_ERRORS.adminClientErrors.group)
  group(@Query() dto: ClientErrorGroupRefDto): Promise<ClientErrorGroupDetailReply> {
    return this.clientErrors.group(dto);
  }

  @Get('occurrences')
  @AdminRoles('viewer')
  @ApiOperation({
    summary:
      "A group's stored occurrences, newest first (each a record of up to a minute of one device's similar reports); detail by merge_key.",
  })
  @ApiEnvelope(ClientErrorOccurrencePageReply, ENDPOINT_ERRORS.adminClientErrors.occurrences)
  occurrences(
    @CurrentAdmin() actor: AdminActor,
    @Query() dto: ClientErrorOccurrencesQueryDto,
  ): Promise<ClientErrorOccurrencePageReply> {
    return this.clientErrors.occurrences(actor, dto);
  }
}
