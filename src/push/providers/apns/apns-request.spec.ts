import type { PushDevice, PushNotification } from '../push-provider';
import { APNS_MAX_PAYLOAD_BYTES, APNS_MAX_VOIP_PAYLOAD_BYTES, buildApnsRequest } from './apns-request';

const token = 'a'.repeat(64);
const alertDevice: PushDevice = { provider: 'apns', token, packageName: null };
const voipDevice: PushDevice = { provider: 'apns_voip', token, packageName: null };
const notification: PushNotification = {
  eventId: '3f0c1a52-8f0e-4c8e-9d47-0d5b3f2a9e11',
  kind: 'message',
  priority: 'normal',
  title: 'Alice',
  body: 'Hello there',
  badge: 120,
  threadId: 'conv-1',
  data: { conversation_id: 'conv-1', event_id: '3f0c1a52-8f0e-4c8e-9d47-0d5b3f2a9e11', type: 'message' },
  expiresAt: 1_800_000_000_500,
};
const options = { topic: 'com.example.chat', jwt: 'header.claims.signature' };

describe('buildApnsRequest', () => {
  it('shapes an alert push: headers and aps payload with the data beside it', () => {
    const request = buildApnsRequest(alertDevice, notification, options);
    expect(request.headers).toEqual({
      ':method': 'POST',
      ':path': `/3/device/${token}`,
      authorization: 'bearer header.claims.signature',
      'apns-topic': 'com.example.chat',
      'apns-push-type': 'alert',
      'apns-priority': '10',
      'apns-expiration': '1800000000',
      'apns-collapse-id': notification.eventId,
    });
    expect(JSON.parse(request.body)).toEqual({
      aps: {
        alert: { title: 'Alice', body: 'Hello there' },
        badge: 120,
        sound: 'default',
        'thread-id': 'conv-1',
        'mutable-content': 1,
      },
      ...notification.data,
    });
    expect(request.tooLarge).toBe(false);
  });

  it('leaves the title out when it is hidden, and never lets data replace aps', () => {
    const request = buildApnsRequest(
      alertDevice,
      { ...notification, title: null, data: { ...notification.data, aps: 'overwritten' } },
      options,
    );
    const payload = JSON.parse(request.body) as { aps: { alert: Record<string, string> } };
    expect(payload.aps.alert).toEqual({ body: 'Hello there' });
  });

  it('shapes a VoIP push: the .voip topic, voip push type, the data only', () => {
    const request = buildApnsRequest(voipDevice, { ...notification, kind: 'call', priority: 'high' }, options);
    expect(request.headers['apns-topic']).toBe('com.example.chat.voip');
    expect(request.headers['apns-push-type']).toBe('voip');
    expect(request.headers['apns-priority']).toBe('10');
    expect(JSON.parse(request.body)).toEqual(notification.data);
  });

  it('hashes a collapse ID longer than 64 bytes into 64 hex characters, the same each time', () => {
    const eventId = 'é'.repeat(40);
    const first = buildApnsRequest(alertDevice, { ...notification, eventId }, options).headers['apns-collapse-id'];
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(buildApnsRequest(alertDevice, { ...notification, eventId }, options).headers['apns-collapse-id']).toBe(
      first,
    );
  });

  it('cuts an overlong text to fit 4096 bytes with an ellipsis, never splitting a surrogate pair', () => {
    const body = '😀'.repeat(2000);
    const request = buildApnsRequest(alertDevice, { ...notification, body }, options);
    expect(request.tooLarge).toBe(false);
    expect(Buffer.byteLength(request.body)).toBeLessThanOrEqual(APNS_MAX_PAYLOAD_BYTES);
    const text = (JSON.parse(request.body) as { aps: { alert: { body: string } } }).aps.alert.body;
    expect(text.endsWith('…')).toBe(true);
    expect(text.slice(0, -1)).toBe('😀'.repeat(Array.from(text).length - 1));
    // As long as fits: one more emoji would not.
    expect(Buffer.byteLength(request.body) + 4).toBeGreaterThan(APNS_MAX_PAYLOAD_BYTES);
  });

  it('counts JSON escapes when cutting', () => {
    const body = '"\\\n\u0001'.repeat(2000);
    const request = buildApnsRequest(alertDevice, { ...notification, body }, options);
    expect(Buffer.byteLength(request.body)).toBeLessThanOrEqual(APNS_MAX_PAYLOAD_BYTES);
    const text = (JSON.parse(request.body) as { aps: { alert: { body: string } } }).aps.alert.body;
    expect(body.startsWith(text.slice(0, -1))).toBe(true);
    expect(text.length).toBeGreaterThan(100);
  });

  it('cuts the title when the text alone cannot make room', () => {
    const request = buildApnsRequest(alertDevice, { ...notification, title: 'T'.repeat(5000) }, options);
    expect(request.tooLarge).toBe(false);
    expect(Buffer.byteLength(request.body)).toBeLessThanOrEqual(APNS_MAX_PAYLOAD_BYTES);
    const alert = (JSON.parse(request.body) as { aps: { alert: { title: string; body: string } } }).aps.alert;
    expect(alert.title.endsWith('T…')).toBe(true);
    expect(alert.body).toBe('');
  });

  it('says so when the data alone is over the limit', () => {
    const data = { blob: 'x'.repeat(APNS_MAX_PAYLOAD_BYTES) };
    expect(buildApnsRequest(alertDevice, { ...notification, data }, options).tooLarge).toBe(true);
    const voipData = { blob: 'x'.repeat(APNS_MAX_VOIP_PAYLOAD_BYTES) };
    expect(buildApnsRequest(voipDevice, { ...notification, data: voipData }, options).tooLarge).toBe(true);
    // A VoIP push has 5120 bytes: what is too large for an alert fits.
    expect(buildApnsRequest(voipDevice, { ...notification, data }, options).tooLarge).toBe(false);
  });
});
