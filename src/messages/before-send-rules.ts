import { AppError } from '../common/app-error';
import { ErrorCode } from '../common/error-code';
import { findJsonProblem } from '../common/text';
import type { ViewerConversation } from '../conversation-views/conversation-access.service';
import { memberConversationIds } from '../conversation-views/conversation-access.service';
import type { AuthUser } from '../common/auth-user';
import type { BeforeSendConversation, BeforeSendRequest } from '../contract/before-send';

/** The host's reason is shown to the sender as `msg`: short, one line, nothing invisible. */
export const MAX_REJECT_REASON_LENGTH = 200;
export const DEFAULT_REJECT_REASON = 'the message was refused';
/** Said when the hook failed and WEBHOOK_BEFORE_SEND_ON_FAILURE=reject: nothing about why. */
export const FAILURE_REJECT_REASON = 'the message could not be checked; try again later';

/** What the host's answer means, before a replacement is checked against the message type. */
export type BeforeSendDecision =
  | { action: 'allow' }
  | { action: 'reject'; reason: string }
  | { action: 'replace'; content: unknown }
  | { action: 'malformed'; problem: string };

/** The conversation as the host knows it: external IDs only. */
export function describeConversation(view: ViewerConversation, sender: AuthUser): BeforeSendConversation {
  const conversationId = memberConversationIds(view, sender)(sender.internalId);
  if (view.group) return { type: 'group', conversation_id: conversationId, group_id: view.group.publicId };
  return { type: 'direct', conversation_id: conversationId, peer_id: view.peer?.externalId ?? '' };
}

export function beforeSendRequest(input: {
  senderId: string;
  conversation: BeforeSendConversation;
  type: string;
  content: Record<string, unknown>;
  clientMessageId: string;
}): BeforeSendRequest {
  return {
    type: 'message.before_send',
    data: {
      sender_id: input.senderId,
      conversation: input.conversation,
      message: { type: input.type, content: input.content, client_message_id: input.clientMessageId },
    },
  };
}

// C0/C1 controls, the bidirectional overrides and isolates (they can make a reason read
// differently from what it says) and the line and paragraph separators.
const INVISIBLE = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/gu;

/** One line of at most MAX_REJECT_REASON_LENGTH characters; the default when nothing is left. */
export function cleanRejectReason(raw: string | undefined | null): string {
  if (typeof raw !== 'string') return DEFAULT_REJECT_REASON;
  const text = raw
    .replace(/[\t\n\r]+/g, ' ')
    .replace(INVISIBLE, '')
    .replace(/\p{Cs}/gu, '')
    .replace(/ {2,}/g, ' ')
    .trim();
  if (text === '') return DEFAULT_REJECT_REASON;
  const chars = Array.from(text);
  return chars.length <= MAX_REJECT_REASON_LENGTH ? text : `${chars.slice(0, MAX_REJECT_REASON_LENGTH - 1).join('')}…`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Reads a 2xx answer's body. Anything but one of the three documented shapes is malformed,
 * so a host's mistake never passes as an allow by accident: the failure setting decides it.
 */
export function readBeforeSendAnswer(body: string): BeforeSendDecision {
  let answer: unknown;
  try {
    answer = JSON.parse(body);
  } catch {
    return { action: 'malformed', problem: 'the answer is not JSON' };
  }
  if (!isObject(answer)) return { action: 'malformed', problem: 'the answer is not a JSON object' };
  switch (answer.action) {
    case 'allow':
      return { action: 'allow' };
    case 'reject': {
      const reason = answer.reason;
      if (reason !== undefined && reason !== null && typeof reason !== 'string')
        return { action: 'malformed', problem: 'reason is not a string' };
      return { action: 'reject', reason: cleanRejectReason(reason) };
    }
    case 'replace': {
      if (!isObject(answer.content)) return { action: 'malformed', problem: 'replace without a content object' };
      // What the request pipeline refuses in any client body (lone surrogates, too deep), checked
      // from the same root so the depth limit is the client's.
      const problem = findJsonProblem({ content: answer.content });
      if (problem) return { action: 'malformed', problem: `the replacement's ${problem}` };
      return { action: 'replace', content: answer.content };
    }
    default:
      return { action: 'malformed', problem: 'action is not allow, reject or replace' };
  }
}

/** A replacement refused by the client-input rules (1004) is the host's error, not the sender's. */
export function isInvalidReplacement(error: unknown): error is AppError {
  return error instanceof AppError && error.code === ErrorCode.INVALID_PARAMETER;
}
