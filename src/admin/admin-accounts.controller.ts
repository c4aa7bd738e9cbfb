import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { AdminActor, CurrentAdmin } from './admin-actor';
import { AdminApi } from './admin-api.decorator';
import { AdminAccountsService } from './admin-accounts.service';
import { AdminRefDto, AuditQueryDto, CreateAdminDto, UpdateAdminDto } from './admin.dto';
import { AdminRoles } from './admin.guard';
import { AdminListReply, AdminReply, AuditPageReply } from './admin.reply';

/** Console accounts (owner only) and the audit log (every role). */
@AdminApi()
@Controller('app/admin')
export class AdminAccountsController {
  constructor(private readonly accounts: AdminAccountsService) {}

  @Get('admins')
  @AdminRoles('owner')
  @ApiOperation({ summary: 'Every console account.' })
  @ApiEnvelope(AdminListReply, ENDPOINT_ERRORS.adminAccounts.list)
  list(): Promise<AdminListReply> {
    return this.accounts.list();
  }

  @Post('admins/create')
  @AdminRoles('owner')
  @ApiOperation({ summary: 'Create a console account.' })
  @ApiEnvelope(AdminReply, ENDPOINT_ERRORS.adminAccounts.create)
  create(@CurrentAdmin() actor: AdminActor, @Body() dto: CreateAdminDto): Promise<AdminReply> {
    return this.accounts.create(actor, dto);
  }

  @Post('admins/update')
  @AdminRoles('owner')
  @ApiOperation({
    summary: 'Change role, disabled flag or password. The last enabled owner cannot be demoted or disabled.',
  })
  @ApiEnvelope(AdminReply, ENDPOINT_ERRORS.adminAccounts.update)
  update(@CurrentAdmin() actor: AdminActor, @Body() dto: UpdateAdminDto): Promise<AdminReply> {
    return this.accounts.update(actor, dto);
  }

  @Post('admins/delete')
  @AdminRoles('owner')
  @ApiOperation({ summary: 'Delete a console account and its sessions (its audit rows stay).' })
  @ApiEnvelope(AdminReply, ENDPOINT_ERRORS.adminAccounts.remove)
  remove(@CurrentAdmin() actor: AdminActor, @Body() dto: AdminRefDto): Promise<AdminReply> {
    return this.accounts.remove(actor, dto.username);
  }

  @Get('audit')
  @AdminRoles('viewer')
  @ApiOperation({ summary: 'The audit log, newest first, 50 per page.' })
  @ApiEnvelope(AuditPageReply, ENDPOINT_ERRORS.adminAccounts.audit)
  audit(@CurrentAdmin() actor: AdminActor, @Query() dto: AuditQueryDto): Promise<AuditPageReply> {
    return this.accounts.auditLog(actor, dto);
  }
}
