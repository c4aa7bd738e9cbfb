import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CallbackSignatureGuard } from './callback-signature.guard';
import { RoomEventsFeed } from './room-events-feed';
import { RtcCallbackController } from './rtc-callback.controller';
import { RtcCallbackService } from './rtc-callback.service';
import { RtcRoomEventEntity } from './rtc-room-event.entity';
import { RtcRoomEventsRepository } from './rtc-room-events.repository';

@Module({
  imports: [TypeOrmModule.forFeature([RtcRoomEventEntity])],
  controllers: [RtcCallbackController],
  providers: [CallbackSignatureGuard, RtcCallbackService, RtcRoomEventsRepository, RoomEventsFeed],
  exports: [RtcCallbackService, RoomEventsFeed],
})
export class RtcCallbackModule {}
