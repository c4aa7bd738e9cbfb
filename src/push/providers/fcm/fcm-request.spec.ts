import type { PushDevice, PushNotification } from '../push-provider';
import { buildFcmRequest, FCM_MAX_PAYLOAD_BYTES, payloadBytes } from './fcm-request';

const NOW = Date.parse('2026-03-01T10:00:00Z');
const device: PushDevice = { provider: 'fcm', token: 'device-token-abc', packageName: 'com.example.chat' };

function notification(overrides: Partial<PushNotification> = {}): PushNotification {
  return {
    eventId: '6f1c7a52-5d1e-4f7e-9a55-0c1f3e9b2d11',
    kind: 'message',
    priority: 'normal',
    title: 'Alice',
    body: 'See you at 8',
    badge: 3,
    threadId: 'conv-42',
    data: { type: 'message', conversation_id: 'conv-42', event_id: '6f1c7a52-5d1e-4f7e-9a55-0c1f3e9b2d11' },
    expiresAt: NOW + 3600_000,
    ...overrides,
  };
}

describe('buildFcmRequest', () => {
  it('shapes a message: notification, Android collapse key/tag/count/ttl, APNs headers and aps', () => {
    const n = notification();
    expect(buildFcmRequest(device, n, NOW, { androidChannelId: 'messages' })).toEqual({
      message: {
        token: 'device-token-abc',
        notification: { title: 'Alice', body: 'See you at 8' },
        data: n.data,
        android: {
          priority: 'NORMAL',
          collapse_key: n.eventId,
          ttl: '3600s',
          notification: { tag: n.eventId, notification_count: 3, channel_id: 'messages' },
        },
        apns: {
          headers: {
            'apns-collapse-id': n.eventId,
            'apns-priority': '5',
            'apns-expiration': String(Math.floor(n.expiresAt / 1000)),
            'apns-push-type': 'alert',
          },
          payload: { aps: { badge: 3, 'thread-id': 'conv-42', sound: 'default' } },
        },
      },
    });
  });

  it('leaves the title out when the preview hides the sender, and the channel when none is configured', () => {
    const { message } = buildFcmRequest(device, notification({ title: null, body: 'New message' }), NOW);
    expect(message.notification).toEqual({ body: 'New message' });
    expect(message.android.notification).toEqual({ tag: expect.any(String), notification_count: 3 });
  });

  it('sends a call data-only at high priority, the text in data for the call screen and an alert for iOS', () => {
    const n = notification({
      kind: 'call',
      priority: 'high',
      title: 'Bob',
      body: 'Incoming call',
      data: { type: 'call', call_id: 'c1' },
    });
    const { message } = buildFcmRequest(device, n, NOW);
    expect(message.notification).toBeUndefined();
    expect(message.android).toEqual({ priority: 'HIGH', collapse_key: n.eventId, ttl: '3600s' });
    expect(message.data).toEqual({ type: 'call', call_id: 'c1', title: 'Bob', body: 'Incoming call' });
    expect(message.apns.headers['apns-priority']).toBe('10');
    expect(message.apns.payload.aps).toMatchObject({ alert: { title: 'Bob', body: 'Incoming call' } });
  });

  it("does not overwrite the dispatcher's own title/body data keys on a call", () => {
    const n = notification({ kind: 'call', priority: 'high', data: { type: 'call', title: 'kept', body: 'kept too' } });
    expect(buildFcmRequest(device, n, NOW).message.data).toEqual({ type: 'call', title: 'kept', body: 'kept too' });
  });

  it('rounds the ttl up to whole seconds, never below zero', () => {
    expect(buildFcmRequest(device, notification({ expiresAt: NOW + 1500 }), NOW).message.android.ttl).toBe('2s');
    expect(buildFcmRequest(device, notification({ expiresAt: NOW - 5000 }), NOW).message.android.ttl).toBe('0s');
  });

  it('leaves a body that fits untouched', () => {
    const body = 'x'.repeat(1000);
    expect(buildFcmRequest(device, notification({ body }), NOW).message.notification?.body).toBe(body);
  });

  it('shortens a long body to fit 4096 bytes, ending with an ellipsis', () => {
    const body = 'a'.repeat(10_000);
    const request = buildFcmRequest(device, notification({ body }), NOW);
    const shortened = request.message.notification!.body;
    expect(payloadBytes(request)).toBeLessThanOrEqual(FCM_MAX_PAYLOAD_BYTES);
    expect(shortened.endsWith('\u2026')).toBe(true);
    expect(body.startsWith(shortened.slice(0, -1))).toBe(true);
    // As long as fits: one more character would not.
    const longer = {
      message: {
        ...request.message,
        notification: { ...request.message.notification, body: body.slice(0, shortened.length) + '\u2026' },
      },
    };
    expect(payloadBytes(longer)).toBeGreaterThan(FCM_MAX_PAYLOAD_BYTES);
  });

  it('never splits a surrogate pair when shortening', () => {
    const body = '\u{1F600}'.repeat(3000);
    const shortened = buildFcmRequest(device, notification({ body }), NOW).message.notification!.body;
    const withoutEllipsis = shortened.slice(0, -1);
    expect(withoutEllipsis.length % 2).toBe(0);
    expect(Array.from(withoutEllipsis).every((char) => char === '\u{1F600}')).toBe(true);
    expect(Buffer.from(shortened, 'utf8').toString('utf8')).toBe(shortened);
  });

  it('shortens a call body in both places it appears', () => {
    const body = 'b'.repeat(5000);
    const request = buildFcmRequest(device, notification({ kind: 'call', priority: 'high', body }), NOW);
    expect(payloadBytes(request)).toBeLessThanOrEqual(FCM_MAX_PAYLOAD_BYTES);
    expect(request.message.data.body.length).toBeLessThan(body.length);
    expect((request.message.apns.payload.aps.alert as { body: string }).body).toBe(request.message.data.body);
  });

  it('counts the payload without the target token', () => {
    const short = buildFcmRequest({ ...device, token: 'a' }, notification(), NOW);
    const long = buildFcmRequest({ ...device, token: 'a'.repeat(500) }, notification(), NOW);
    expect(payloadBytes(short)).toBe(payloadBytes(long));
  });
});
