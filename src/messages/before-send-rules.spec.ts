import {
  DEFAULT_REJECT_REASON,
  MAX_REJECT_REASON_LENGTH,
  beforeSendRequest,
  cleanRejectReason,
  readBeforeSendAnswer,
} from './before-send-rules';

describe('readBeforeSendAnswer', () => {
  it('reads allow, reject (with or without a reason) and replace', () => {
    expect(readBeforeSendAnswer('{"action":"allow","extra":1}')).toEqual({ action: 'allow' });
    expect(readBeforeSendAnswer('{"action":"reject","reason":"no spam"}')).toEqual({
      action: 'reject',
      reason: 'no spam',
    });
    expect(readBeforeSendAnswer('{"action":"reject"}')).toEqual({ action: 'reject', reason: DEFAULT_REJECT_REASON });
    expect(readBeforeSendAnswer('{"action":"reject","reason":null}')).toEqual({
      action: 'reject',
      reason: DEFAULT_REJECT_REASON,
    });
    expect(readBeforeSendAnswer('{"action":"replace","content":{"text":"***"}}')).toEqual({
      action: 'replace',
      content: { text: '***' },
    });
  });

  it.each([
    ['', 'not JSON'],
    ['<html>', 'not JSON'],
    ['null', 'not a JSON object'],
    ['[{"action":"allow"}]', 'not a JSON object'],
    ['"allow"', 'not a JSON object'],
    ['{}', 'action is not'],
    ['{"action":"ALLOW"}', 'action is not'],
    ['{"action":"drop"}', 'action is not'],
    ['{"action":"reject","reason":42}', 'reason is not a string'],
    ['{"action":"replace"}', 'replace without a content object'],
    ['{"action":"replace","content":"x"}', 'replace without a content object'],
    ['{"action":"replace","content":[]}', 'replace without a content object'],
    ['{"action":"replace","content":{"text":"a\\ud800b"}}', "the replacement's content.text: contains invalid Unicode"],
    [`{"action":"replace","content":{"data":${'{"a":'.repeat(40)}1${'}'.repeat(40)}}}`, 'nested deeper than'],
  ])('calls %j malformed (%s)', (body, problem) => {
    const decision = readBeforeSendAnswer(body);
    expect(decision.action).toBe('malformed');
    expect(decision.action === 'malformed' && decision.problem).toContain(problem);
  });
});

describe('cleanRejectReason', () => {
  it('keeps a plain reason, Unicode included', () => {
    expect(cleanRejectReason('Links are not allowed 🚫 here')).toBe('Links are not allowed 🚫 here');
  });

  it('makes one line without control, bidirectional or separator characters', () => {
    expect(cleanRejectReason('  bad\r\n\tword\u0000\u001b[31m \u202eevil\u2066 \u2028x  ')).toBe('bad word[31m evil x');
  });

  it('answers the default for nothing left', () => {
    expect(cleanRejectReason('')).toBe(DEFAULT_REJECT_REASON);
    expect(cleanRejectReason(' \n\u0007 ')).toBe(DEFAULT_REJECT_REASON);
    expect(cleanRejectReason(undefined)).toBe(DEFAULT_REJECT_REASON);
    expect(cleanRejectReason('\ud800')).toBe(DEFAULT_REJECT_REASON);
  });

  it('cuts a long reason to the limit, counting characters not UTF-16 units', () => {
    const cut = cleanRejectReason('😀'.repeat(500));
    expect(Array.from(cut)).toHaveLength(MAX_REJECT_REASON_LENGTH);
    expect(cut.endsWith('…')).toBe(true);
    expect(cleanRejectReason('a'.repeat(MAX_REJECT_REASON_LENGTH))).toBe('a'.repeat(MAX_REJECT_REASON_LENGTH));
  });
});

describe('beforeSendRequest', () => {
  it('is the documented shape, external IDs only', () => {
    expect(
      beforeSendRequest({
        senderId: 'alice',
        conversation: { type: 'group', conversation_id: 'group_g1', group_id: 'g1' },
        type: 'text',
        content: { text: 'hi' },
        clientMessageId: 'c1',
      }),
    ).toEqual({
      type: 'message.before_send',
      data: {
        sender_id: 'alice',
        conversation: { type: 'group', conversation_id: 'group_g1', group_id: 'g1' },
        message: { type: 'text', content: { text: 'hi' }, client_message_id: 'c1' },
      },
    });
  });
});
