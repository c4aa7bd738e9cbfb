import { SetMetadata } from '@nestjs/common';

export const RAW_REPLY = 'rawReply';

/** The handler's return value is the whole reply (the provider-format room callback). */
export const RawReply = (): MethodDecorator & ClassDecorator => SetMetadata(RAW_REPLY, true);
