import type { PushNotification } from '../push-provider';
import { buildXiaomiForm, classifyXiaomiAnswer, xiaomiNotifyId } from './xiaomi-request';

const NOW = Date.UTC(2026, 0, 1);
const REGID = 'Xr7Vd3k9mZ/regid+value';

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

const options = { packageName: 'com.example.chat', channelId: null, genericTitle: 'New notification', now: NOW };

describe('xiaomiNotifyId', () => {
  it('is a stable non-negative 31-bit integer per event', () => {
    const id = xiaomiNotifyId('0b7f3c9e-1d2a-4c55-9a40-3f1e2d3c4b5a');
    expect(id).toBe(xiaomiNotifyId('0b7f3c9e-1d2a-4c55-9a40-3f1e2d3c4b5a'));
    expect(Number.isInteger(id) && id >= 0 && id < 2 ** 31).toBe(true);
    expect(xiaomiNotifyId('another-event')).not.toBe(id);
  });
});

describe('buildXiaomiForm', () => {
  it('shapes a notification message for one regid', () => {
    const form = buildXiaomiForm(REGID, notification(), options);
    expect(Object.fromEntries(form ?? [])).toEqual({
      registration_id: REGID,
      restricted_package_name: 'com.example.chat',
      pass_through: '0',
      title: 'Alice',
      description: 'Hello there',
      payload: JSON.stringify({ conversation_id: 'conv-1', type: 'message' }),
      notify_type: '-1',
      notify_id: String(xiaomiNotifyId('0b7f3c9e-1d2a-4c55-9a40-3f1e2d3c4b5a')),
      time_to_live: '3600000',
      'extra.notify_effect': '1',
      'extra.notify_foreground': '1',
    });
  });

  it('adds the channel, the generic title, and clips to Xiaomi lengths by characters', () => {
    const long = '长'.repeat(200);
    const form = buildXiaomiForm(REGID, notification({ title: null, body: long }), {
      ...options,
      channelId: 'im_private',
    });
    expect(form?.get('extra.channel_id')).toBe('im_private');
    expect(form?.get('title')).toBe('New notification');
    expect(Array.from(form?.get('description') ?? '')).toHaveLength(127);
    const longTitle = buildXiaomiForm(REGID, notification({ title: 'x'.repeat(80) }), options);
    expect(Array.from(longTitle?.get('title') ?? '')).toHaveLength(49);
  });

  it('is null once expired and caps the TTL at two weeks', () => {
    expect(buildXiaomiForm(REGID, notification({ expiresAt: NOW + 10 }), options)).toBeNull();
    const far = buildXiaomiForm(REGID, notification({ expiresAt: NOW + 30 * 86400_000 }), options);
    expect(far?.get('time_to_live')).toBe(String(14 * 86400_000));
  });
});

describe('classifyXiaomiAnswer', () => {
  const ok = (data: Record<string, unknown>): string =>
    JSON.stringify({ result: 'ok', code: 0, description: '成功', data });
  const err = (code: number, reason: string): string =>
    JSON.stringify({ result: 'error', code, description: '', reason });

  it('maps success, and a success that lists the regid as bad', () => {
    expect(classifyXiaomiAnswer(200, ok({ id: 'scm01' }), REGID)).toEqual({ kind: 'sent', messageId: 'scm01' });
    expect(classifyXiaomiAnswer(200, ok({ id: 'scm01', bad_regids: `other,${REGID}` }), REGID).kind).toBe('dead_token');
    expect(classifyXiaomiAnswer(200, ok({ id: 'scm01', bad_regids: 'other' }), REGID).kind).toBe('sent');
  });

  it('maps invalid targets, retryable and permanent codes', () => {
    expect(classifyXiaomiAnswer(200, err(20301, 'No valid targets!'), REGID).kind).toBe('dead_token');
    expect(classifyXiaomiAnswer(200, err(20301, 'send failed'), REGID).kind).toBe('failed');
    expect(classifyXiaomiAnswer(200, err(10002, 'system busy'), REGID).kind).toBe('retry');
    expect(classifyXiaomiAnswer(200, err(10034, 'too many messages today'), REGID).kind).toBe('retry');
    expect(classifyXiaomiAnswer(200, err(21301, 'Authentication failed'), REGID).kind).toBe('failed');
    expect(classifyXiaomiAnswer(200, err(22022, 'Invalid package name'), REGID).kind).toBe('failed');
  });

  it('falls back to the HTTP status without a result code, and never echoes the regid', () => {
    expect(classifyXiaomiAnswer(503, '<html/>', REGID).kind).toBe('retry');
    expect(classifyXiaomiAnswer(429, '', REGID).kind).toBe('retry');
    expect(classifyXiaomiAnswer(404, '<html/>', REGID).kind).toBe('failed');
    const verdict = classifyXiaomiAnswer(200, err(10017, `illegal ${REGID}`), REGID);
    expect(JSON.stringify(verdict)).not.toContain(REGID);
  });
});
