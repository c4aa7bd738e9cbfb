import { Body, Controller, Get, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CapabilityGuard, RequiresCapability } from '../common/capability.guard';
import { ApiEnvelope } from '../common/openapi/api-envelope';
import { ENDPOINT_ERRORS } from '../common/openapi/endpoint-errors';
import { AuthUser } from '../common/auth-user';
import { CurrentUser } from '../im-token/current-user.decorator';
import { ImTokenGuard } from '../im-token/im-token.guard';
import { CallActionReply, CallListReply, CallReply, RtcCredentialsReply } from './call.mapper';
import { CallStartService } from './call-start.service';
import { CallsService } from './calls.service';
import { AcceptCallDto, CallRefDto, RejectCallDto, StartCallDto } from './dto/call.dto';

@ApiTags('sdk calls')
@ApiBearerAuth('im-token')
@UseGuards(ImTokenGuard, CapabilityGuard)
@RequiresCapability('calls')
@Controller('app/sdk/calls')
export class CallsController {
  constructor(
    private readonly starts: CallStartService,
    private readonly calls: CallsService,
  ) {}

  @Post('start')
  @ApiOperation({
    summary: "Start an audio or video call in a conversation; answers the call and the caller's RTC credentials.",
    description:
      'One-to-one: friends and not blocked (1203, as for sending); a callee already in a live call is answered at once with the call ended `busy`. ' +
      'Group: a current member, not muted; rings `user_ids` or every other member, within CALL_MAX_PARTICIPANTS (1213). ' +
      'When the conversation already has a live call, start joins it: the callee of a ringing one-to-one call accepts it (two users calling each other converge on one call). ' +
      "`client_call_id` is the caller's idempotency key.",
  })
  @ApiEnvelope(CallActionReply, ENDPOINT_ERRORS.calls.start)
  start(@CurrentUser() user: AuthUser, @Body() dto: StartCallDto): Promise<CallActionReply> {
    return this.starts.start(user, dto);
  }

  @Post('ringing')
  @ApiOperation({
    summary:
      "A callee's device reports that it rings (participant invited → ringing; the caller receives call.ringing). " +
      '1216 when the relationship no longer allows the call (no longer friends, a block, no longer a member of the group): a one-to-one call then ends, a group call goes on without them (unless that leaves nobody).',
  })
  @ApiEnvelope(CallActionReply, ENDPOINT_ERRORS.calls.ringing)
  ringing(@CurrentUser() user: AuthUser, @Body() dto: CallRefDto): Promise<CallActionReply> {
    return this.calls.ringing(user, dto);
  }

  @Post('accept')
  @ApiOperation({
    summary:
      "Accept a call on one device; answers the callee's RTC credentials. Another device of the same user then gets 1217; the others stop ringing on call.accepted (other_device_accepted). " +
      '1216 when the relationship no longer allows the call (no longer friends, a block, no longer a member of the group): a one-to-one call then ends, a group call goes on without them (unless that leaves nobody).',
  })
  @ApiEnvelope(CallActionReply, ENDPOINT_ERRORS.calls.accept)
  accept(@CurrentUser() user: AuthUser, @Body() dto: AcceptCallDto): Promise<CallActionReply> {
    return this.calls.accept(user, dto);
  }

  @Post('reject')
  @ApiOperation({
    summary:
      'Decline a ringing call (reason decline or busy). One-to-one the call ends (rejected or busy); a group call ends when every callee declined.',
  })
  @ApiEnvelope(CallActionReply, ENDPOINT_ERRORS.calls.reject)
  reject(@CurrentUser() user: AuthUser, @Body() dto: RejectCallDto): Promise<CallActionReply> {
    return this.calls.reject(user, dto);
  }

  @Post('cancel')
  @ApiOperation({ summary: 'The caller cancels a call that still rings (ends `canceled`).' })
  @ApiEnvelope(CallActionReply, ENDPOINT_ERRORS.calls.cancel)
  cancel(@CurrentUser() user: AuthUser, @Body() dto: CallRefDto): Promise<CallActionReply> {
    return this.calls.cancel(user, dto);
  }

  @Post('hangup')
  @ApiOperation({
    summary:
      'Leave a call: one-to-one it ends (`hangup`; `canceled` while it rings); a group call ends when its last participant left. Idempotent.',
  })
  @ApiEnvelope(CallActionReply, ENDPOINT_ERRORS.calls.hangup)
  hangup(@CurrentUser() user: AuthUser, @Body() dto: CallRefDto): Promise<CallActionReply> {
    return this.calls.hangup(user, dto);
  }

  @Post('credentials')
  @ApiOperation({
    summary: 'Fresh RTC credentials for a participant who joined a live call (to enter the room again).',
  })
  @ApiEnvelope(RtcCredentialsReply, ENDPOINT_ERRORS.calls.credentials)
  credentials(@CurrentUser() user: AuthUser, @Body() dto: CallRefDto): Promise<RtcCredentialsReply> {
    return this.calls.credentials(user, dto);
  }

  @Get('get')
  @ApiOperation({ summary: 'One call of yours.' })
  @ApiEnvelope(CallReply, ENDPOINT_ERRORS.calls.get)
  get(@CurrentUser() user: AuthUser, @Query() query: CallRefDto): Promise<CallReply> {
    return this.calls.get(user, query);
  }

  @Get('active')
  @ApiOperation({ summary: 'Your calls that ring or are ongoing (invited, ringing or joined), newest first.' })
  @ApiEnvelope(CallListReply, ENDPOINT_ERRORS.calls.active)
  active(@CurrentUser() user: AuthUser): Promise<CallListReply> {
    return this.calls.active(user);
  }
}
