// docs/push.md "Privacy of previews", level none: nothing that leaves the service names a person,
// a group or a conversation — per event type, exactly `type`, `event_id` and what answering
// needs (a call's call_id and media, a friend request's request_id), one thread `im`, generic
// texts — and the per-device rules of "How the SDK registers" (25 registrations, one provider a
// device).
import { randomBytes } from 'node:crypto';
import { friendCid, groupCid } from '../helpers/api-client';
import { IssuedUser, bearer } from '../helpers/test-app';
import { FakeFcm } from '../push/fakes/fake-fcm';
import { apnsToken } from '../push/push-kit';
import {
  PushWorld,
  bootWorld,
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
  w = await bootWorld();
});
afterAll(async () => {
  await w.close();
});

type Json = Record<string, unknown>;

interface Phones {
  fcm: string;
  apns: string;
  huawei: string;
  xiaomi: string;
}

async function privatePhones(user: IssuedUser): Promise<Phones> {
  expect((await settingsPost(w.t, user, { preview: 'none', quiet_hours: null })).code).toBe(0);
  const phones = { fcm: FakeFcm.deviceToken(), apns: apnsToken(), huawei: huaweiToken(), xiaomi: xiaomiRegId() };
  await registerOk(w.t, user, { device_id: deviceId(), provider: 'fcm', token: phones.fcm, platform: 'android' });
  await registerOk(w.t, user, { device_id: deviceId(), provider: 'apns', token: phones.apns, platform: 'ios' });
  await registerOk(w.t, user, { device_id: deviceId(), provider: 'huawei', token: phones.huawei, platform: 'android' });
  await registerOk(w.t, user, { device_id: deviceId(), provider: 'xiaomi', token: phones.xiaomi, platform: 'android' });
  return phones;
}

/** The app-facing data each provider carried in its latest notification to these phones. */
function latestData(phones: Phones): Record<string, Json | null> {
  const last = <T>(list: T[]): T | undefined => list[list.length - 1];
  const apns = last(w.apns!.received.filter((r) => r.token === phones.apns));
  return {
    fcm: (last(w.fcm!.received.filter((r) => r.token === phones.fcm))?.message as { data?: Json })?.data ?? null,
    apns: apns ? Object.fromEntries(Object.entries(apns.payload).filter(([k]) => k !== 'aps')) : null,
    huawei: last(w.huawei!.received.filter((r) => r.token === phones.huawei))?.data ?? null,
    xiaomi: last(w.xiaomi!.received.filter((r) => r.token === phones.xiaomi))?.payload ?? null,
  };
}

/** Everything every provider received for these phones, as one string. */
function everything(phones: Phones): string {
  return JSON.stringify([
    w.fcm!.received.filter((r) => r.token === phones.fcm).map((r) => r.message),
    w.apns!.received.filter((r) => r.token === phones.apns).map((r) => [r.payload, r.headers['apns-collapse-id']]),
    w.huawei!.received.filter((r) => r.token === phones.huawei).map((r) => r.payload),
    w.xiaomi!.received.filter((r) => r.token === phones.xiaomi).map((r) => r.form),
  ]);
}

const every = (data: Json) => ({ fcm: data, apns: data, huawei: data, xiaomi: data });

describe('preview level none', () => {
  it('a message: type and event_id only; thread "im"; no name, ID or text of anyone', async () => {
    const sender = await w.api.user({ nickname: `Zed${randomBytes(3).toString('hex')}` });
    const peer = await w.api.user();
    const groupId = await w.api.createGroup(sender, [peer], { name: `Secret club ${randomBytes(3).toString('hex')}` });
    await settled(w.t);
    const phones = await privatePhones(peer);
    const sent = await w.api.send(sender, groupCid(groupId), 'the password is swordfish');
    await settled(w.t);
    expect(latestData(phones)).toEqual(every({ type: 'message', event_id: sent.event_id }));
    const all = everything(phones);
    const group = await w.api.group(peer, groupId);
    expect({
      text: all.includes('swordfish'),
      nickname: all.includes(sender.userId) || all.includes('Zed'),
      group: all.includes(groupId) || all.includes(group.name),
    }).toEqual({ text: false, nickname: false, group: false });
    const threads = w
      .apns!.received.filter((r) => r.token === phones.apns)
      .map((r) => (r.payload.aps as Json)['thread-id']);
    expect(threads).toEqual(['im']);
  });

  it('a call: call_id and media, "Incoming call" or the like, no caller', async () => {
    const [caller, callee] = await w.api.users(2);
    await w.api.befriend(caller, callee);
    await settled(w.t);
    const phones = await privatePhones(callee);
    const started = await w.t.http
      .post('/app/sdk/calls/start')
      .set(...bearer(caller.token))
      .send({
        conversation_id: friendCid(callee),
        media: 'audio',
        client_call_id: `cc-${randomBytes(5).toString('hex')}`,
        device_id: 'caller-phone',
      });
    expect(started.body.code).toBe(0);
    await settled(w.t);
    const data = latestData(phones);
    const call = {
      type: 'call',
      event_id: expect.any(String),
      call_id: started.body.data.call.call_id,
      media: 'audio',
    };
    // FCM calls are data-only: the data also carries the shown text (docs/push.md, FCM), no title at none.
    expect(data).toEqual({ ...every(call), fcm: { ...call, body: 'Incoming call' } });
    expect(everything(phones).includes(caller.userId)).toBe(false);
  });

  it('a friend request: request_id only; a group invitation: nothing of the group', async () => {
    const [asker, owner] = await w.api.users(2);
    const asked = await w.api.user();
    const phones = await privatePhones(asked);
    const { request } = await w.api.friendRequest(asker, asked);
    await settled(w.t);
    expect(latestData(phones)).toEqual(
      every({ type: 'friend_request', event_id: expect.any(String), request_id: String(request.id) }),
    );
    const groupId = await w.api.createGroup(owner, []);
    await w.api.addMembers(owner, groupId, [asked]);
    await settled(w.t);
    expect(latestData(phones)).toEqual(every({ type: 'group_invitation', event_id: expect.any(String) }));
    const all = everything(phones);
    expect({
      asker: all.includes(asker.userId),
      owner: all.includes(owner.userId),
      group: all.includes(groupId),
    }).toEqual({
      asker: false,
      owner: false,
      group: false,
    });
  });
});

describe('registrations per user and per device', () => {
  it('at most 25: a 26th drops the one registered least recently', async () => {
    const user = await w.api.user();
    const ids: string[] = [];
    for (let i = 0; i < 26; i += 1) {
      const id = `dev-${String(i).padStart(2, '0')}-${randomBytes(3).toString('hex')}`;
      ids.push(id);
      await registerOk(w.t, user, {
        device_id: id,
        provider: 'fcm',
        token: FakeFcm.deviceToken(),
        platform: 'android',
      });
      w.t.clock.advance(10);
    }
    const listed = ((await settingsGet(w.t, user)).data as { devices: Array<{ device_id: string }> }).devices;
    expect(listed.map((d) => d.device_id).sort()).toEqual(ids.slice(1).sort());
  });

  it.each([
    ['huawei', 'android', huaweiToken],
    ['xiaomi', 'android', xiaomiRegId],
    ['apns', 'ios', apnsToken],
  ])('a phone registered with FCM and %s is reached once, through %s', async (provider, platform, makeToken) => {
    const [sender, peer] = await w.api.users(2);
    await w.api.befriend(sender, peer);
    await settled(w.t);
    const id = deviceId();
    const fcm = FakeFcm.deviceToken();
    const own = makeToken();
    await registerOk(w.t, peer, { device_id: id, provider: 'fcm', token: fcm, platform });
    await registerOk(w.t, peer, { device_id: id, provider, token: own, platform });
    await w.api.send(sender, friendCid(peer), 'once per phone');
    await settled(w.t);
    const ownFake = provider === 'huawei' ? w.huawei! : provider === 'xiaomi' ? w.xiaomi! : w.apns!;
    expect({
      fcm: w.fcm!.received.filter((r) => r.token === fcm).length,
      own: (ownFake.received as Array<{ token: string }>).filter((r) => r.token === own).length,
    }).toEqual({ fcm: 0, own: 1 });
  });
});
