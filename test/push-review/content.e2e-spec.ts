// docs/push.md "What a notification carries" and "Privacy of previews": the data keys of each
// event type, the event ID as every provider's collapse key, the badge, the thread, VoIP only
// for calls, priorities and lifetimes, and what each preview level lets leave the service.
import { randomBytes } from 'node:crypto';
import { friendCid, groupCid } from '../helpers/api-client';
import { connect, listen } from '../helpers/realtime';
import { PresenceService } from '../../src/realtime/presence.service';
import { IssuedUser, bearer } from '../helpers/test-app';
import { FakeFcm } from '../push/fakes/fake-fcm';
import { apnsToken, eventually } from '../push/push-kit';
import {
  PushWorld,
  bootWorld,
  deliveryRows,
  deviceId,
  huaweiToken,
  registerOk,
  rowsMentioning,
  settingsPost,
  settled,
  xiaomiRegId,
} from './review-kit';

let w: PushWorld;
beforeAll(async () => {
  // Without the launcher class Huawei gets no badge (docs/push.md, HUAWEI_BADGE_CLASS).
  w = await bootWorld({ env: { HUAWEI_BADGE_CLASS: 'com.example.chat.MainActivity' } });
});
afterAll(async () => {
  await w.close();
});

interface Phones {
  fcm: string;
  apns: string;
  voip: string;
  huawei: string;
  xiaomi: string;
}

/** One device on each provider (an iPhone with its alert and VoIP tokens). */
async function everyPhone(user: IssuedUser): Promise<Phones> {
  const phones = {
    fcm: FakeFcm.deviceToken(),
    apns: apnsToken(),
    voip: apnsToken(),
    huawei: huaweiToken(),
    xiaomi: xiaomiRegId(),
  };
  const iphone = deviceId('iphone');
  await registerOk(w.t, user, { device_id: deviceId(), provider: 'fcm', token: phones.fcm, platform: 'android' });
  await registerOk(w.t, user, { device_id: iphone, provider: 'apns', token: phones.apns, platform: 'ios' });
  await registerOk(w.t, user, { device_id: iphone, provider: 'apns_voip', token: phones.voip, platform: 'ios' });
  await registerOk(w.t, user, { device_id: deviceId(), provider: 'huawei', token: phones.huawei, platform: 'android' });
  await registerOk(w.t, user, { device_id: deviceId(), provider: 'xiaomi', token: phones.xiaomi, platform: 'android' });
  return phones;
}

type Json = Record<string, unknown>;
const fcmOf = (token: string) => w.fcm!.received.filter((r) => r.token === token).map((r) => r.message as Json);
const apnsOf = (token: string) => w.apns!.received.filter((r) => r.token === token);
const huaweiOf = (token: string) => w.huawei!.received.filter((r) => r.token === token);
const xiaomiOf = (token: string) => w.xiaomi!.received.filter((r) => r.token === token);
const last = <T>(list: T[]): T => list[list.length - 1];
const apnsData = (payload: Json): Json => Object.fromEntries(Object.entries(payload).filter(([k]) => k !== 'aps'));

async function friendsQuietly(a: IssuedUser, b: IssuedUser): Promise<void> {
  await w.api.befriend(a, b);
  await settled(w.t);
}

describe('a message', () => {
  it('carries the same string data on every provider, with the event ID as the collapse key', async () => {
    const [sender, peer] = await w.api.users(2);
    await friendsQuietly(sender, peer);
    const phones = await everyPhone(peer);
    const sent = await w.api.send(sender, friendCid(peer), 'See you at eight');
    await settled(w.t);
    const expected = {
      type: 'message',
      event_id: sent.event_id,
      conversation_id: friendCid(sender),
      message_id: String(sent.message.mid),
      conversation_seq: String(sent.message.conversation_seq),
      sender_id: sender.userId,
    };
    const fcm = last(fcmOf(phones.fcm)) as { data: Json; android: Json & { notification: Json } };
    const apns = last(apnsOf(phones.apns));
    const huawei = last(huaweiOf(phones.huawei));
    const xiaomi = last(xiaomiOf(phones.xiaomi));
    expect({
      fcm: fcm.data,
      apns: apnsData(apns.payload),
      huawei: huawei.data,
      xiaomi: xiaomi.payload,
    }).toEqual({ fcm: expected, apns: expected, huawei: expected, xiaomi: expected });
    expect({
      fcm: [fcm.android.collapse_key, fcm.android.notification.tag],
      apns: apns.collapseKey,
      huawei: huawei.collapseKey,
    }).toEqual({ fcm: [sent.event_id, sent.event_id], apns: sent.event_id, huawei: sent.event_id });
    expect({ voip: apnsOf(phones.voip).length, pushType: apns.pushType, topic: apns.topic }).toEqual({
      voip: 0,
      pushType: 'alert',
      topic: 'com.example.chat',
    });
  });

  it('is high priority and lives PUSH_MESSAGE_TTL_SECONDS (24 h by default)', async () => {
    const [sender, peer] = await w.api.users(2);
    await friendsQuietly(sender, peer);
    const phones = await everyPhone(peer);
    await w.api.send(sender, friendCid(peer), 'ttl');
    await settled(w.t);
    const fcm = last(fcmOf(phones.fcm)) as { android: Json };
    const apns = last(apnsOf(phones.apns));
    const nowSeconds = w.t.clock.now() / 1000;
    expect({
      fcmPriority: fcm.android.priority,
      fcmTtl: fcm.android.ttl,
      apnsPriority: apns.priority,
      apnsExpiresIn: Math.abs((apns.expiration ?? 0) - (nowSeconds + 86_400)) < 120,
      huaweiPriority: last(huaweiOf(phones.huawei)).priority,
    }).toEqual({
      fcmPriority: 'HIGH',
      fcmTtl: expect.stringMatching(/^86[34]\d\ds$/),
      apnsPriority: 10,
      apnsExpiresIn: true,
      huaweiPriority: 'HIGH',
    });
  });

  it('in a group: the group conversation ID and thread; two messages share the thread', async () => {
    const [owner, member] = await w.api.users(2);
    const groupId = await w.api.createGroup(owner, [member]);
    await settled(w.t);
    const phones = await everyPhone(member);
    await w.api.send(owner, groupCid(groupId), 'one');
    await w.api.send(owner, groupCid(groupId), 'two');
    await settled(w.t);
    const alerts = apnsOf(phones.apns);
    expect(alerts.map((a) => [(a.payload.aps as Json)['thread-id'], a.payload.conversation_id])).toEqual([
      [groupCid(groupId), groupCid(groupId)],
      [groupCid(groupId), groupCid(groupId)],
    ]);
    expect(w.apns!.shown(phones.apns)).toHaveLength(2);
  });
});

describe('the badge', () => {
  it('is the unread total outside muted conversations, on every provider that has one', async () => {
    const [peer, loud, quiet] = await w.api.users(3);
    await friendsQuietly(loud, peer);
    await friendsQuietly(quiet, peer);
    await w.api.setting(peer, 'mute', friendCid(quiet), true);
    await w.api.sendMany(quiet, friendCid(peer), 4, 'muted');
    await w.api.sendMany(loud, friendCid(peer), 2, 'loud');
    await settled(w.t);
    const phones = await everyPhone(peer);
    await w.api.send(loud, friendCid(peer), 'third');
    await settled(w.t);
    const unread = await w.api.unread(peer);
    expect(unread.total_unmuted).toBe(3);
    expect({
      fcm: (last(fcmOf(phones.fcm)) as { android: { notification: Json } }).android.notification.notification_count,
      apns: (last(apnsOf(phones.apns)).payload.aps as Json).badge,
      huawei: last(huaweiOf(phones.huawei)).badge?.set_num,
    }).toEqual({ fcm: 3, apns: 3, huawei: 3 });
  });

  it('goes past 100 (Huawei caps it at 99)', async () => {
    const [peer, sender] = await w.api.users(2);
    await friendsQuietly(sender, peer);
    const url = await listen(w.t);
    const online = await connect(url, { auth: { token: peer.token } });
    try {
      for (let i = 0; i < 104; i += 1) await w.api.send(sender, friendCid(peer), `m${i}`);
    } finally {
      online.close();
    }
    await settled(w.t);
    // The server sees the connection close a moment later (longer on a loaded machine).
    const presence = w.t.app.get(PresenceService);
    await eventually(async () => !(await presence.onlineAmong([peer.id])).has(peer.id), 'the peer to be offline');
    const phones = await everyPhone(peer);
    await w.api.send(sender, friendCid(peer), 'the 105th');
    await settled(w.t);
    expect({
      fcm: (last(fcmOf(phones.fcm)) as { android: { notification: Json } }).android.notification.notification_count,
      apns: (last(apnsOf(phones.apns)).payload.aps as Json).badge,
      huawei: last(huaweiOf(phones.huawei)).badge?.set_num,
    }).toEqual({ fcm: 105, apns: 105, huawei: 99 });
  });
});

describe('a call', () => {
  it('goes to the VoIP token of an iPhone (not its alert token), data-only on FCM, high priority, 60 s', async () => {
    const [caller, callee] = await w.api.users(2);
    await friendsQuietly(caller, callee);
    const phones = await everyPhone(callee);
    const started = await w.t.http
      .post('/app/sdk/calls/start')
      .set(...bearer(caller.token))
      .send({
        conversation_id: friendCid(callee),
        media: 'video',
        client_call_id: `cc-${randomBytes(5).toString('hex')}`,
        device_id: 'caller-phone',
      });
    expect(started.body.code).toBe(0);
    const callId = started.body.data.call.call_id as string;
    await settled(w.t);
    const voip = apnsOf(phones.voip);
    const fcm = last(fcmOf(phones.fcm)) as { data: Json; notification?: Json; android: Json };
    const nowSeconds = w.t.clock.now() / 1000;
    expect({
      alerts: apnsOf(phones.apns).length,
      voip: voip.map((v) => [v.pushType, v.topic, v.priority]),
      voipExpiresSoon: Math.abs((voip[0]?.expiration ?? 0) - (nowSeconds + 60)) < 30,
      fcmNotification: fcm.notification ?? null,
      fcmPriority: fcm.android.priority,
      fcmTtl: fcm.android.ttl,
    }).toEqual({
      alerts: 0,
      voip: [['voip', 'com.example.chat.voip', 10]],
      voipExpiresSoon: true,
      fcmNotification: null,
      fcmPriority: 'HIGH',
      fcmTtl: expect.stringMatching(/^(60|59|58)s$/),
    });
    expect(apnsData(voip[0].payload)).toMatchObject({
      type: 'call',
      call_id: callId,
      media: 'video',
      conversation_id: friendCid(caller),
      sender_id: caller.userId,
      event_id: expect.any(String),
    });
    expect(fcm.data).toMatchObject({
      type: 'call',
      call_id: callId,
      media: 'video',
      conversation_id: friendCid(caller),
    });
  });

  it('rings an iPhone without a VoIP token through its alert token', async () => {
    const [caller, callee] = await w.api.users(2);
    await friendsQuietly(caller, callee);
    const alert = apnsToken();
    await registerOk(w.t, callee, { device_id: deviceId(), provider: 'apns', token: alert, platform: 'ios' });
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
    expect(apnsOf(alert).map((a) => [a.pushType, a.payload.type])).toEqual([['alert', 'call']]);
  });
});

describe('a friend request and a group invitation', () => {
  it('friend_request: request_id and sender_id, normal priority (direct APNs: 10 on every request)', async () => {
    const [asker, asked] = await w.api.users(2);
    const phones = await everyPhone(asked);
    const { request } = await w.api.friendRequest(asker, asked);
    await settled(w.t);
    const fcm = last(fcmOf(phones.fcm)) as { data: Json; android: Json };
    expect(fcm.data).toEqual({
      type: 'friend_request',
      event_id: expect.any(String),
      request_id: String(request.id),
      sender_id: asker.userId,
    });
    expect({ fcm: fcm.android.priority, apns: last(apnsOf(phones.apns)).priority }).toEqual({
      fcm: 'NORMAL',
      apns: 10,
    });
  });

  it('group_invitation: group_id, the group conversation and the inviter', async () => {
    const [owner, added] = await w.api.users(2);
    const groupId = await w.api.createGroup(owner, []);
    const phones = await everyPhone(added);
    await w.api.addMembers(owner, groupId, [added]);
    await settled(w.t);
    const fcm = last(fcmOf(phones.fcm)) as { data: Json; android: Json };
    expect(fcm.data).toEqual({
      type: 'group_invitation',
      event_id: expect.any(String),
      group_id: groupId,
      conversation_id: groupCid(groupId),
      sender_id: owner.userId,
    });
    expect(fcm.android.priority).toBe('NORMAL');
  });
});

describe('preview levels', () => {
  const secret = () => `Meet me at the ${randomBytes(4).toString('hex')} door`;

  async function scene(level: 'full' | 'sender' | 'none', group = false) {
    const nickname = `Alice${randomBytes(3).toString('hex')}`;
    const sender = await w.api.user({ nickname });
    const peer = await w.api.user();
    let conversation: string;
    let groupName: string | null = null;
    if (group) {
      const groupId = await w.api.createGroup(sender, [peer]);
      groupName = `G ${groupId}`;
      conversation = groupCid(groupId);
    } else {
      await w.api.befriend(sender, peer);
      conversation = friendCid(peer);
    }
    await settled(w.t);
    expect((await settingsPost(w.t, peer, { preview: level, quiet_hours: null })).code).toBe(0);
    const phones = await everyPhone(peer);
    const text = secret();
    await w.api.send(sender, conversation, text);
    await settled(w.t);
    return { nickname, sender, text, phones, groupName };
  }

  it('full: the sender and the text, cut to 120 characters on one line', async () => {
    const s = await scene('full');
    const shown = last(w.fcm!.shown(s.phones.fcm));
    expect({ title: shown.title, body: shown.body }).toEqual({ title: s.nickname, body: s.text });
    const [sender, peer] = await w.api.users(2);
    await friendsQuietly(sender, peer);
    const phone = FakeFcm.deviceToken();
    await registerOk(w.t, peer, { device_id: deviceId(), provider: 'fcm', token: phone, platform: 'android' });
    await w.api.send(sender, friendCid(peer), `${'line one\n'.repeat(10)}${'😀'.repeat(200)}`);
    await settled(w.t);
    const body = last(w.fcm!.shown(phone)).body;
    expect({
      lines: body.includes('\n'),
      chars: [...body].length <= 120,
      brokenEmoji: /[\ud800-\udfff](?![\udc00-\udfff])/.test(body.replace(/[\ud800-\udbff][\udc00-\udfff]/g, '')),
    }).toEqual({
      lines: false,
      chars: true,
      brokenEmoji: false,
    });
  });

  it('sender: who, not what ("New message"; a group: "Alice: New message")', async () => {
    const one = await scene('sender');
    const shownOne = last(w.fcm!.shown(one.phones.fcm));
    const group = await scene('sender', true);
    const shownGroup = last(w.fcm!.shown(group.phones.fcm));
    expect({ one: [shownOne.title, shownOne.body], group: [shownGroup.title, shownGroup.body] }).toEqual({
      one: [one.nickname, 'New message'],
      group: [group.groupName, `${group.nickname}: New message`],
    });
  });

  it('none: nothing of the text or the sender reaches any provider', async () => {
    const s = await scene('none');
    const everything = JSON.stringify([
      fcmOf(s.phones.fcm),
      apnsOf(s.phones.apns).map((a) => a.payload),
      huaweiOf(s.phones.huawei).map((h) => h.payload),
      xiaomiOf(s.phones.xiaomi).map((x) => x.form),
    ]);
    const shown = last(w.fcm!.shown(s.phones.fcm));
    expect({
      text: everything.includes(s.text),
      nickname: everything.includes(s.nickname),
      senderId: everything.includes(s.sender.userId),
      body: shown.body,
      apnsTitle: (last(apnsOf(s.phones.apns)).payload.aps as { alert: Json }).alert.title ?? null,
    }).toEqual({ text: false, nickname: false, senderId: false, body: 'You have a new message', apnsTitle: null });
  });

  it('the stored record holds no text once final, at every level', async () => {
    const scenes = [await scene('full'), await scene('sender'), await scene('none', true)];
    const rows = await deliveryRows(w.t);
    expect(rows.filter((r) => r.status === 'pending' || r.payload !== null)).toEqual([]);
    for (const s of scenes) {
      expect(await rowsMentioning(w.t, ['push_deliveries', 'push_dispatch'], s.text)).toEqual([]);
      for (const token of Object.values(s.phones))
        expect(await rowsMentioning(w.t, ['push_deliveries', 'push_dispatch'], token)).toEqual([]);
    }
  });
});
