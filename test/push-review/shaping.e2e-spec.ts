// docs/push.md per-provider shaping an app relies on: HarmonyOS NEXT through Huawei's v3 API and
// Android through v1, Chinese generic texts for a zh locale, Xiaomi's title and description
// limits, and one queued notification per device and event.
import { friendCid, groupCid } from '../helpers/api-client';
import { IssuedUser } from '../helpers/test-app';
import { FakeFcm } from '../push/fakes/fake-fcm';
import { apnsToken } from '../push/push-kit';
import {
  PushWorld,
  bootWorld,
  deliveryRows,
  deviceId,
  huaweiToken,
  registerOk,
  settingsGet,
  settingsPost,
  settled,
  xiaomiRegId,
} from './review-kit';

let w: PushWorld;
beforeAll(async () => {
  w = await bootWorld({
    providers: ['apns', 'fcm', 'huawei', 'xiaomi'],
    env: { PUSH_MESSAGE_TTL_SECONDS: '3600', PUSH_CALL_TTL_SECONDS: '30' },
  });
});
afterAll(async () => {
  await w.close();
});

async function friendsQuietly(a: IssuedUser, b: IssuedUser): Promise<void> {
  await w.api.befriend(a, b);
  await settled(w.t);
}

it('Huawei: a HarmonyOS registration goes through v3, an Android one through v1', async () => {
  const [sender, peer] = await w.api.users(2);
  await friendsQuietly(sender, peer);
  const harmony = huaweiToken();
  const android = huaweiToken();
  await registerOk(w.t, peer, { device_id: deviceId(), provider: 'huawei', token: harmony, platform: 'harmony' });
  await registerOk(w.t, peer, { device_id: deviceId(), provider: 'huawei', token: android, platform: 'android' });
  await w.api.send(sender, friendCid(peer), 'both');
  await settled(w.t);
  const api = (token: string) => w.huawei!.received.filter((r) => r.token === token).map((r) => r.api);
  expect({ harmony: api(harmony), android: api(android) }).toEqual({ harmony: ['v3'], android: ['v1'] });
});

it('a zh locale gets the Chinese generic text when the preview hides the message', async () => {
  const [sender, peer] = await w.api.users(2);
  await friendsQuietly(sender, peer);
  await settingsPost(w.t, peer, { preview: 'none', quiet_hours: null });
  const zh = FakeFcm.deviceToken();
  const en = FakeFcm.deviceToken();
  await registerOk(w.t, peer, {
    device_id: deviceId(),
    provider: 'fcm',
    token: zh,
    platform: 'android',
    locale: 'zh-CN',
  });
  await registerOk(w.t, peer, {
    device_id: deviceId(),
    provider: 'fcm',
    token: en,
    platform: 'android',
    locale: 'en-GB',
  });
  await w.api.send(sender, friendCid(peer), 'secret');
  await settled(w.t);
  const zhBody = w.fcm!.shown(zh)[0]?.body ?? '';
  expect({
    en: w.fcm!.shown(en)[0]?.body,
    zhIsChinese: /[\u4e00-\u9fff]/.test(zhBody),
    zhLeaks: zhBody.includes('secret'),
  }).toEqual({
    en: 'You have a new message',
    zhIsChinese: true,
    zhLeaks: false,
  });
});

it('Xiaomi: the title clipped to 49 characters and the description to 127', async () => {
  const sender = await w.api.user({ nickname: '名'.repeat(60) });
  const peer = await w.api.user();
  await friendsQuietly(sender, peer);
  const regId = xiaomiRegId();
  await registerOk(w.t, peer, { device_id: deviceId(), provider: 'xiaomi', token: regId, platform: 'android' });
  await w.api.send(sender, friendCid(peer), '字'.repeat(400));
  await settled(w.t);
  const [got] = w.xiaomi!.received.filter((r) => r.token === regId);
  expect({
    title: [...(got?.title ?? '')].length <= 49,
    description: [...(got?.description ?? '')].length <= 127,
  }).toEqual({
    title: true,
    description: true,
  });
});

it('one queued notification per device and event, each shown once', async () => {
  const [owner, a] = await w.api.users(2);
  const groupId = await w.api.createGroup(owner, [a]);
  await settled(w.t);
  const tokens = [FakeFcm.deviceToken(), FakeFcm.deviceToken()];
  for (const token of tokens)
    await registerOk(w.t, a, { device_id: deviceId(), provider: 'fcm', token, platform: 'android' });
  const sent = await w.api.send(owner, groupCid(groupId), 'once');
  await settled(w.t);
  const rows = (await deliveryRows(w.t)).filter((r) => r.event_id === sent.event_id);
  expect({
    rows: rows.length,
    registrations: new Set(rows.map((r) => String(r.registration_id))).size,
    shown: tokens.map((t) => w.fcm!.shown(t).length),
  }).toEqual({ rows: 2, registrations: 2, shown: [1, 1] });
});

it('full preview: "[Image]", "[File]" and a custom message\'s description', async () => {
  const [sender, peer] = await w.api.users(2);
  await friendsQuietly(sender, peer);
  const phone = FakeFcm.deviceToken();
  await registerOk(w.t, peer, { device_id: deviceId(), provider: 'fcm', token: phone, platform: 'android' });
  // A 1×1 PNG.
  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
    'base64',
  );
  const image = await w.api.upload(sender, png, { filename: 'cat.png', contentType: 'image/png', kind: 'image' });
  const file = await w.api.upload(sender, Buffer.from('notes'), {
    filename: 'notes.txt',
    contentType: 'text/plain',
    kind: 'file',
  });
  const bodies: Array<[string, Record<string, unknown>]> = [
    ['image', { media_id: image.media_id }],
    ['file', { media_id: file.media_id }],
    ['custom', { data: { kind: 'location' }, description: 'Shared a location' }],
  ];
  for (const [type, content] of bodies) {
    const response = await w.api.raw.send(sender, {
      conversation_id: friendCid(peer),
      client_message_id: `c-${deviceId()}`,
      type,
      content,
    });
    expect({ type, code: response.body.code }).toEqual({ type, code: 0 });
  }
  await settled(w.t);
  expect(w.fcm!.shown(phone).map((s) => s.body)).toEqual(['[Image]', '[File]', 'Shared a location']);
});

it('PUSH_MESSAGE_TTL_SECONDS and PUSH_CALL_TTL_SECONDS set what each provider is told', async () => {
  const [sender, peer] = await w.api.users(2);
  await friendsQuietly(sender, peer);
  const tokens = { fcm: FakeFcm.deviceToken(), apns: apnsToken(), huawei: huaweiToken(), xiaomi: xiaomiRegId() };
  await registerOk(w.t, peer, { device_id: deviceId(), provider: 'fcm', token: tokens.fcm, platform: 'android' });
  await registerOk(w.t, peer, { device_id: deviceId(), provider: 'apns', token: tokens.apns, platform: 'ios' });
  await registerOk(w.t, peer, { device_id: deviceId(), provider: 'huawei', token: tokens.huawei, platform: 'android' });
  await registerOk(w.t, peer, { device_id: deviceId(), provider: 'xiaomi', token: tokens.xiaomi, platform: 'android' });
  const lifetimes = () => {
    const now = w.t.clock.now();
    const fcm = w.fcm!.received.filter((r) => r.token === tokens.fcm).pop()?.message as { android: { ttl: string } };
    const apns = w.apns!.received.filter((r) => r.token === tokens.apns).pop();
    const huawei = w.huawei!.received.filter((r) => r.token === tokens.huawei).pop();
    const xiaomi = w.xiaomi!.received.filter((r) => r.token === tokens.xiaomi).pop();
    return {
      fcm: parseInt(fcm.android.ttl, 10),
      apns: Math.round(((apns?.expiration ?? 0) * 1000 - now) / 1000),
      huawei: parseInt(huawei?.ttl ?? '', 10),
      xiaomi: Math.round((xiaomi?.timeToLiveMs ?? 0) / 1000),
    };
  };
  await w.api.send(sender, friendCid(peer), 'ttl');
  await settled(w.t);
  const message = lifetimes();
  for (const [provider, seconds] of Object.entries(message))
    expect({ provider, ok: seconds > 3_300 && seconds <= 3_600 }).toEqual({ provider, ok: true });
  const started = await w.t.http
    .post('/app/sdk/calls/start')
    .set('Authorization', `Bearer ${sender.token}`)
    .send({
      conversation_id: friendCid(peer),
      media: 'audio',
      client_call_id: `cc-${deviceId()}`,
      device_id: 'caller',
    });
  expect(started.body.code).toBe(0);
  await settled(w.t);
  const call = lifetimes();
  for (const [provider, seconds] of Object.entries(call))
    expect({ provider, ok: seconds > 0 && seconds <= 30 }).toEqual({ provider, ok: true });
});

it('APNs alerts: sound, mutable-content, and a title only when the preview shows the sender', async () => {
  const [sender, peer] = await w.api.users(2);
  await friendsQuietly(sender, peer);
  const token = apnsToken();
  await registerOk(w.t, peer, { device_id: deviceId(), provider: 'apns', token, platform: 'ios' });
  await w.api.send(sender, friendCid(peer), 'full');
  await settled(w.t);
  await settingsPost(w.t, peer, { preview: 'none', quiet_hours: null });
  await w.api.send(sender, friendCid(peer), 'none');
  await settled(w.t);
  const alerts = w.apns!.received.filter((r) => r.token === token).map((r) => r.payload.aps as Record<string, unknown>);
  expect(alerts.map((aps) => [aps.sound, aps['mutable-content'], 'title' in (aps.alert as object)])).toEqual([
    ['default', 1, true],
    ['default', 1, false],
  ]);
});

it('full preview in a group: the group name as title, the text after the sender’s name', async () => {
  const sender = await w.api.user();
  const peer = await w.api.user();
  const groupId = await w.api.createGroup(sender, [peer]);
  await settled(w.t);
  const phone = FakeFcm.deviceToken();
  await registerOk(w.t, peer, { device_id: deviceId(), provider: 'fcm', token: phone, platform: 'android' });
  await w.api.send(sender, groupCid(groupId), 'lunch at noon');
  await settled(w.t);
  const [shown] = w.fcm!.shown(phone);
  const group = await w.api.group(peer, groupId);
  const me = await w.api.me(sender);
  expect({ title: shown?.title, body: shown?.body }).toEqual({
    title: group.name,
    body: `${me.nickname}: lunch at noon`,
  });
});

it('Huawei without the v3 credentials: a HarmonyOS notification fails once, the registration is kept', async () => {
  const v1 = await bootWorld({ providers: ['huawei'], omit: ['HUAWEI_PROJECT_ID', 'HUAWEI_SERVICE_ACCOUNT_FILE'] });
  try {
    const [sender, peer] = await v1.api.users(2);
    await v1.api.befriend(sender, peer);
    await settled(v1.t);
    const token = huaweiToken();
    await registerOk(v1.t, peer, { device_id: deviceId(), provider: 'huawei', token, platform: 'harmony' });
    const sent = await v1.api.send(sender, friendCid(peer), 'to HarmonyOS');
    await settled(v1.t);
    const [row] = (await deliveryRows(v1.t)).filter((r) => r.event_id === sent.event_id);
    const devices = ((await settingsGet(v1.t, peer)).data as { devices: unknown[] }).devices;
    expect({ status: row?.status, attempts: Number(row?.attempts), devices: devices.length }).toEqual({
      status: 'failed',
      attempts: 1,
      devices: 1,
    });
  } finally {
    await v1.close();
  }
});
