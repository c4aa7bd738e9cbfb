/** The provider callback answers in its own format, also when the body parser refuses it. */
export const ROOM_CALLBACK_PATH = '/app/sdk/rtc/room-callback';
export const ROOM_CALLBACK_BODY_LIMIT = 65536;

const CALLBACK_MARK = Symbol('roomCallback');

/** Marks a request as addressed to the room callback (however Express matched its path). */
export function markRoomCallback(request: object): void {
  (request as Record<symbol, boolean>)[CALLBACK_MARK] = true;
}

export function isRoomCallback(request: object): boolean {
  return (request as Record<symbol, boolean>)[CALLBACK_MARK] === true;
}
