import type { PushNotification } from '../push-provider';
import {
  buildHuaweiV1Body,
  buildHuaweiV3Body,
  classifyHuaweiAnswer,
  classifyHuaweiTokenAnswer,
  huaweiNotifyId,
  huaweiTtlSeconds,
} from './huawei-request';

const NOW = Date.UTC(2026, 0, 1);
const TOKEN = 'IQAAAACy0kR3AAB-device-token';

function notification(overrides: Partial<PushNotification> = {}): PushNotification {
  return {
    eventId: '0b7f3c9e-1d2a-4c55-9a40-3f1e2d3c4b5a',
    kind: 'message',
    priority: 'normal',
    title: 'Alice',
    body: 'Hello there',
    badge: 3,
    threadId: 'conv-1',
    data: { conversation_id: 'conv-1', type: 'message' },
    expiresAt: NOW + 3600_000,
    ...overrides,
  };
}

const options = { badgeClass: 'com.example.chat.MainActivity', genericTitle: 'New notification', now: NOW };

describe('buildHuaweiV1Body', () => {
  it('shapes a message notification for one token with the event ID as tag', () => {
    const body = buildHuaweiV1Body(TOKEN, notification(), options);
    expect(body).toEqual({
      validate_only: false,
      message: {
        token: [TOKEN],
        data: JSON.stringify({ conversation_id: 'conv-1', type: 'message' }),
        android: {
          collapse_key: -1,
          urgency: 'NORMAL',
          category: 'IM',
          ttl: '3600s',
          notification: {
            title: 'Alice',
            body: 'Hello there',
            tag: '0b7f3c9e-1d2a-4c55-9a40-3f1e2d3c4b5a',
            click_action: { type: 3 },
            importance: 'NORMAL',
            badge: { set_num: 3, class: 'com.example.chat.MainActivity' },
          },
        },
      },
    });
  });

  it('sends calls as high-urgency VOIP', () => {
    const body = buildHuaweiV1Body(TOKEN, notification({ kind: 'call', priority: 'high' }), options);
    expect(body?.message.android.urgency).toBe('HIGH');
    expect(body?.message.android.category).toBe('VOIP');
  });

  it('uses the generic title when the preview hides the sender, and omits empty data', () => {
    const body = buildHuaweiV1Body(TOKEN, notification({ title: null, data: {} }), options);
    expect(body?.message.android.notification.title).toBe('New notification');
    expect(body?.message).not.toHaveProperty('data');
  });

  it('caps the badge at 99 and leaves it out without a badge class', () => {
    expect(
      buildHuaweiV1Body(TOKEN, notification({ badge: 250 }), options)?.message.android.notification.badge?.set_num,
    ).toBe(99);
    const noClass = buildHuaweiV1Body(TOKEN, notification(), { ...options, badgeClass: null });
    expect(noClass?.message.android.notification).not.toHaveProperty('badge');
  });

  it('is null for an expired notification and caps the TTL at 15 days', () => {
    expect(buildHuaweiV1Body(TOKEN, notification({ expiresAt: NOW - 1 }), options)).toBeNull();
    expect(huaweiTtlSeconds(NOW + 40 * 86400_000, NOW)).toBe(15 * 86400);
    expect(huaweiTtlSeconds(NOW + 500, NOW)).toBeNull();
  });
});

describe('buildHuaweiV3Body', () => {
  it('shapes a HarmonyOS alert with a notifyId derived from the event', () => {
    const body = buildHuaweiV3Body(TOKEN, notification({ badge: 120 }), { genericTitle: 'New notification', now: NOW });
    expect(body).toEqual({
      payload: {
        notification: {
          category: 'IM',
          title: 'Alice',
          body: 'Hello there',
          clickAction: { actionType: 0, data: { conversation_id: 'conv-1', type: 'message' } },
          notifyId: huaweiNotifyId('0b7f3c9e-1d2a-4c55-9a40-3f1e2d3c4b5a'),
          badge: { setNum: 99 },
        },
      },
      target: { token: [TOKEN] },
      pushOptions: { ttl: 3600 },
    });
  });

  it('keeps the notifyId stable per event and within 31 bits', () => {
    const id = huaweiNotifyId('event-a');
    expect(id).toBe(huaweiNotifyId('event-a'));
    expect(id).not.toBe(huaweiNotifyId('event-b'));
    expect(id >= 0 && id < 2 ** 31).toBe(true);
  });
});

describe('classifyHuaweiAnswer', () => {
  const answer = (code: string, msg = '', requestId = 'req-1'): string => JSON.stringify({ code, msg, requestId });

  it('maps success and partial success', () => {
    expect(classifyHuaweiAnswer(200, answer('80000000', 'Success'), TOKEN)).toEqual({
      kind: 'sent',
      requestId: 'req-1',
    });
    const partialOther = answer('80100000', JSON.stringify({ success: 1, failure: 1, illegal_tokens: ['other'] }));
    expect(classifyHuaweiAnswer(200, partialOther, TOKEN).kind).toBe('sent');
    const partialMine = answer('80100000', JSON.stringify({ success: 0, failure: 1, illegal_tokens: [TOKEN] }));
    expect(classifyHuaweiAnswer(200, partialMine, TOKEN).kind).toBe('dead_token');
  });

  it('maps invalid tokens, auth, retryable and permanent codes', () => {
    expect(classifyHuaweiAnswer(200, answer('80300007', 'All the tokens are invalid'), TOKEN).kind).toBe('dead_token');
    expect(classifyHuaweiAnswer(401, answer('80200003', 'Oauth Token expired.'), TOKEN).kind).toBe('auth');
    expect(classifyHuaweiAnswer(401, answer('80200001', 'Oauth authentication error'), TOKEN).kind).toBe('auth');
    expect(classifyHuaweiAnswer(401, answer('80200005', 'Jwt token expired.'), TOKEN).kind).toBe('auth');
    expect(classifyHuaweiAnswer(500, answer('81000001', 'System inner error'), TOKEN).kind).toBe('retry');
    expect(classifyHuaweiAnswer(400, answer('80100001', 'Some request parameters are incorrect'), TOKEN).kind).toBe(
      'failed',
    );
    expect(classifyHuaweiAnswer(403, answer('80300002', 'No permission'), TOKEN).kind).toBe('failed');
    expect(classifyHuaweiAnswer(400, answer('80300008', 'too large'), TOKEN).kind).toBe('failed');
  });

  it('falls back to the HTTP status when the body is not Huawei JSON', () => {
    expect(classifyHuaweiAnswer(503, '<html>busy</html>', TOKEN).kind).toBe('retry');
    expect(classifyHuaweiAnswer(429, '', TOKEN).kind).toBe('retry');
    expect(classifyHuaweiAnswer(401, '', TOKEN).kind).toBe('auth');
    expect(classifyHuaweiAnswer(404, 'Not Found', TOKEN).kind).toBe('failed');
  });

  it('never echoes the device token in a reason', () => {
    const verdict = classifyHuaweiAnswer(400, answer('80100001', `bad token ${TOKEN}`), TOKEN);
    expect(verdict.kind).toBe('failed');
    expect(JSON.stringify(verdict)).not.toContain(TOKEN);
  });
});

describe('classifyHuaweiTokenAnswer', () => {
  it('reads the token and its lifetime', () => {
    expect(
      classifyHuaweiTokenAnswer(200, JSON.stringify({ access_token: 'at', expires_in: 3600, token_type: 'Bearer' })),
    ).toEqual({
      kind: 'token',
      accessToken: 'at',
      expiresInSec: 3600,
    });
  });

  it('fails on refused credentials and retries on server trouble', () => {
    expect(classifyHuaweiTokenAnswer(400, JSON.stringify({ error: 1101, sub_error: 20109 }))).toEqual({
      kind: 'failed',
      reason: 'Huawei OAuth HTTP 400 error 1101 sub_error 20109',
    });
    expect(classifyHuaweiTokenAnswer(502, '').kind).toBe('retry');
  });
});
