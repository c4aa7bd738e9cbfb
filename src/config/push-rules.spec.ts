import { buildPushConfig, parsePushRules } from './push-rules';

describe('push rules', () => {
  const rules = parsePushRules(
    JSON.stringify([
      { platform: 'android', config: { provider: 'fcm', sender_id: '1' } },
      { platform: 'android', manufacturer: 'Xiaomi', config: { provider: 'mipush', app_id: 'x' } },
      { platform: 'ios', package_name: 'com.example.app', config: { provider: 'apns', topic: 'com.example.app' } },
    ]),
  );

  it('merges every matching rule in order, manufacturer case-insensitively', () => {
    expect(buildPushConfig(rules, { platform: 'android', manufacturer: 'xiaomi', package_name: 'a.b' })).toEqual({
      provider: 'mipush',
      sender_id: '1',
      app_id: 'x',
    });
    expect(buildPushConfig(rules, { platform: 'android', manufacturer: 'huawei', package_name: 'a.b' })).toEqual({
      provider: 'fcm',
      sender_id: '1',
    });
  });

  it('matches package names exactly', () => {
    expect(buildPushConfig(rules, { platform: 'ios', manufacturer: 'Apple', package_name: 'com.example.app' })).toEqual(
      { provider: 'apns', topic: 'com.example.app' },
    );
    expect(buildPushConfig(rules, { platform: 'ios', manufacturer: 'Apple', package_name: 'com.example.APP' })).toEqual(
      {},
    );
  });

  it('answers {} for Web (no device fields) and never hands out the stored object', () => {
    expect(buildPushConfig(rules, null)).toEqual({});
    const push = buildPushConfig(rules, { platform: 'android', manufacturer: 'x', package_name: 'y' });
    push.provider = 'changed';
    expect(buildPushConfig(rules, { platform: 'android', manufacturer: 'x', package_name: 'y' }).provider).toBe('fcm');
  });

  it.each([
    ['{}', 'JSON array'],
    ['[1]', 'must be an object'],
    ['[{"platform":"web","config":{}}]', 'platform'],
    ['[{"platform":"ios"}]', 'config'],
    ['[{"platform":"ios","manufacturer":"","config":{}}]', 'manufacturer'],
    ['not json', 'JSON array'],
  ])('refuses %s', (raw, hint) => {
    expect(() => parsePushRules(raw)).toThrow(hint);
  });
});
