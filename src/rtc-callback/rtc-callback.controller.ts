import { Controller, Get, Post, Req, UseGuards } from '@nestjs/common';
import { ApiForbiddenResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RawReply } from '../common/http/raw-reply.decorator';
import { CallbackRequest, CallbackSignatureGuard, VerifiedCallback } from './callback-signature.guard';
import { ProviderRefusal, ProviderReply } from './rtc-callback.reply';
import { RtcCallbackService } from './rtc-callback.service';

function verified(request: CallbackRequest): VerifiedCallback {
  if (!request.verifiedCallback) throw new Error('room callback reached the handler unverified');
  return request.verifiedCallback;
}

@ApiTags('provider callback')
@RawReply()
@Controller('app/sdk/rtc/room-callback')
export class RtcCallbackController {
  constructor(private readonly callbacks: RtcCallbackService) {}

  @Post()
  @UseGuards(CallbackSignatureGuard)
  @ApiOperation({
    summary: 'Room callback from the real-time provider (Tencent TRTC format).',
    description:
      'Body ≤ 65536 bytes of UTF-8 JSON: EventGroupId, EventType, CallbackTs (integers, no fraction or exponent; CallbackTs in Unix ms within 5 minutes), ' +
      'EventInfo {RoomId, UserId for 103/104 (1–32 ASCII letters, digits, "_", "-"), EventMsTs or EventTs (from 24 h before CallbackTs to 5 minutes after)}; ' +
      'a stored EventInfo nests at most 16 levels and serialises to at most 65536 bytes. ' +
      'Sign = Base64(HMAC-SHA256(raw body, RTC_CALLBACK_SECRET)). 102/103/104 of group 1 are stored once per body; others are acknowledged and ignored.',
  })
  @ApiHeader({ name: 'SdkAppId', required: true, description: 'Must equal RTC_SDK_APP_ID.' })
  @ApiHeader({
    name: 'Sign',
    required: true,
    description: 'Base64 HMAC-SHA256 of the raw body; at most 128 characters.',
  })
  @ApiOkResponse({ description: 'Verified: exactly {"code":0}.', type: ProviderReply })
  @ApiForbiddenResponse({
    description: 'Any failed check (signature, app ID, time, size, content): exactly {"code":1}.',
    type: ProviderRefusal,
  })
  receive(@Req() request: CallbackRequest): Promise<ProviderReply> {
    return this.callbacks.handle(verified(request));
  }

  @Get()
  @ApiOperation({ summary: 'Reachability check for the provider console: 200 {"code":0}.' })
  @ApiOkResponse({ description: 'Exactly {"code":0}.', type: ProviderReply })
  reachable(): ProviderReply {
    return { code: 0 };
  }
}
