import { ErrorCode } from '../error-code';

/** What each business code means, as the document lists it under every endpoint. */
export const ERROR_CODE_MEANINGS: Record<number, string> = {
  [ErrorCode.SDK_SECRET_INVALID]: 'SDK backend secret invalid',
  [ErrorCode.SDK_DISABLED]: 'SDK disabled',
  [ErrorCode.USER_DISABLED]: 'User disabled',
  [ErrorCode.INVALID_PARAMETER]: 'Invalid parameter; msg names the field',
  [ErrorCode.TOO_FAST]: 'Request too fast',
  [ErrorCode.TOKEN_MISSING]: 'Token missing',
  [ErrorCode.TOKEN_INVALID]: 'Token invalid (bad signature, wrong algorithm, revoked by a forced logout)',
  [ErrorCode.TOKEN_EXPIRED]: 'Token expired',
  [ErrorCode.CONVERSATION_INACCESSIBLE]: 'Conversation inaccessible or absent',
  [ErrorCode.CAPABILITY_CLOSED]: 'Capability closed',
  [ErrorCode.SEND_FORBIDDEN]: 'Sending forbidden',
  [ErrorCode.PROFILE_INACCESSIBLE]: 'Profile inaccessible',
  [ErrorCode.REQUEST_INACCESSIBLE]: 'Request inaccessible',
  [ErrorCode.ALREADY_FRIENDS]: 'Already friends',
  [ErrorCode.MESSAGE_ABSENT]: 'Message absent (or not visible to the caller)',
  [ErrorCode.RECALL_FORBIDDEN]: 'No permission to recall',
  [ErrorCode.GROUP_OPERATION_FORBIDDEN]: 'Group operation forbidden (or group not accessible)',
  [ErrorCode.INVITATION_INVALID]: 'Invitation invalid',
  [ErrorCode.RELATIONSHIP_RESTRICTED]: 'Relationship restricted',
  [ErrorCode.CALL_DISABLED]: 'Call disabled here (a group call over CALL_MAX_PARTICIPANTS)',
  [ErrorCode.CALL_NOT_FOUND]: 'Call not found (or not one of yours)',
  [ErrorCode.CALL_NO_PERMISSION]:
    'No permission for this call operation (e.g. the caller accepting, a callee cancelling)',
  [ErrorCode.CALL_STATE_CONFLICT]: 'Call state conflict (e.g. accepting an ended call, cancelling an answered one)',
  [ErrorCode.CALL_DEVICE_CONFLICT]: 'Device conflict: accepted on another device of yours',
  [ErrorCode.GROUP_DISABLED]: 'Group disabled',
  [ErrorCode.INTERNAL]: 'Internal or configuration fault (HTTP 500)',
};
