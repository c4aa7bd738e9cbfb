import { previewOf, targetsOf } from './push-fanout';
import type { PushRegistrationEntity } from './push.entities';

function device(id: string, deviceId: string, provider: string): PushRegistrationEntity {
  return {
    id,
    userId: '1',
    deviceId,
    provider,
    token: `t${id}`,
    tokenHash: `h${id}`,
    platform: provider.startsWith('apns') ? 'ios' : 'android',
    packageName: null,
    appVersion: null,
    locale: null,
    tokenVersion: 0,
    createdAt: 0,
    updatedAt: 0,
  };
}

describe('targetsOf', () => {
  const iphone = device('1', 'iphone', 'apns');
  const iphoneVoip = device('2', 'iphone', 'apns_voip');
  const ipad = device('3', 'ipad', 'apns');
  const pixel = device('4', 'pixel', 'fcm');

  it('never sends anything but a call to a VoIP token', () => {
    expect(targetsOf([iphone, iphoneVoip, ipad, pixel], false).map((d) => d.id)).toEqual(['1', '3', '4']);
  });

  it('rings a device through its VoIP token where it has one, and through its ordinary token otherwise', () => {
    expect(targetsOf([iphone, iphoneVoip, ipad, pixel], true).map((d) => d.id)).toEqual(['2', '3', '4']);
  });

  it('reaches a device registered with two providers once, through its platform’s own service', () => {
    const mateFcm = device('5', 'mate', 'fcm');
    const mateHuawei = device('6', 'mate', 'huawei');
    const miFcm = device('7', 'mi', 'fcm');
    const miXiaomi = device('8', 'mi', 'xiaomi');
    expect(targetsOf([mateFcm, mateHuawei, miFcm, miXiaomi, pixel], false).map((d) => d.id)).toEqual(['6', '8', '4']);
    expect(targetsOf([mateFcm, mateHuawei], true).map((d) => d.id)).toEqual(['6']);
  });
});

describe('previewOf', () => {
  it("takes the user's level, or the default for none or an unknown stored value", () => {
    const row = { userId: '1', preview: 'none', quietStart: null, quietEnd: null, timezone: null, updatedAt: 0 };
    expect(previewOf(row, 'full')).toBe('none');
    expect(previewOf({ ...row, preview: null }, 'sender')).toBe('sender');
    expect(previewOf({ ...row, preview: 'weird' }, 'full')).toBe('full');
    expect(previewOf(null, 'none')).toBe('none');
  });
});
