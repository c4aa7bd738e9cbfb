import { Body, Controller, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { SecretGuard } from '../auth/secret.guard';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import type * as contract from '../contract';
import { CurrentHost, HostActor } from './host-actor';
import { ServerApiRateLimitGuard } from './server-api-rate-limit.guard';
import { EraseUserDto } from './user-erasure.dto';
import { UserErasureReply } from './user-erasure.reply';
import { UserErasureService } from './user-erasure.service';
import { ExportUserDto } from './user-export.dto';
import { UserExportReply } from './user-export.reply';
import { UserExportService } from './user-export.service';

/** Data-protection requests of the host backend about one of its users (issue 23, server API). */
@ApiTags('host backend')
@ApiBearerAuth('sdk-secret')
@UseGuards(SecretGuard, ServerApiRateLimitGuard)
@Controller('app/server/users')
export class ServerUsersController {
  constructor(
    private readonly erasure: UserErasureService,
    private readonly exports: UserExportService,
  ) {}

  @Post('erase')
  @ApiOperation({
    summary:
      'Erase a user (data-protection request): tokens revoked, sockets closed, friendships, requests and groups ended, messages tombstoned (or kept, ERASE_KEEPS_MESSAGES), uploads, client errors and the host-app account deleted, profile anonymised and the user_id freed. Safe to repeat: an unknown or already erased user answers status not_found and changes nothing.',
  })
  @ApiEnvelope(UserErasureReply, ENDPOINT_ERRORS.serverUsers.erase)
  erase(@CurrentHost() host: HostActor, @Body() dto: EraseUserDto): Promise<contract.UserErasureReply> {
    return this.erasure.erase(host, dto);
  }

  @Post('export')
  @ApiOperation({
    summary:
      "Export a user's data as JSON: profile, friends, blocks, groups with role, reports filed (first page) and the user's own messages, a page at a time by cursor.",
  })
  @ApiEnvelope(UserExportReply, ENDPOINT_ERRORS.serverUsers.export)
  export(@Body() dto: ExportUserDto): Promise<contract.UserExportReply> {
    return this.exports.export(dto);
  }
}
