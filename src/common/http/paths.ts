/** The provider callback answers in its own format, also when the body parser refuses it. */
export const ROOM_CALLBACK_PATH = '/app/sdk/rtc/room-callback';
export const ROOM_CALLBACK_BODY_LIMIT = 65536;
