// docs/push.md "How it works", step 3: who is notified of each event (a message, a call, a
// friend request, being added to a group) and who is not (the sender, the caller, the operator,
// a muted conversation, a live connection, disabled, revoked and erased users).
import { randomBytes } from 'node:crypto';
import { friendCid, groupCid } from '../helpers/api-client';
import { connect, listen } from '../helpers/realtime';
import { IssuedUser, bearer, hostAuth, issueUser } from '../helpers/test-app';
import { PresenceService } from '../../src/realtime/presence.service';
import { FakeFcm } from '../push/fakes/fake-fcm';
import { apnsToken, eventually } from '../push/push-kit';
import {
  PushWorld,
  bootWorld,
  deviceId,
  huaweiToken,
  metricValue,
  registerOk,
  settingsGet,
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

type Phone = IssuedUser & { phone: string; types(): string[]; reset(): void };

/** A user with one Android phone; `types()` lists the notification types it got since `reset()`. */
async function withPhone(user?: IssuedUser): Promise<Phone> {
  const u = user ?? (await w.api.user());
  const phone = FakeFcm.deviceToken();
  await registerOk(w.t, u, { device_id: deviceId(), provider: 'fcm', token: phone, platform: 'android' });
  let from = 0;
  const all = () =>
    w.fcm!.received.filter((r) => r.token === phone).map((r) => (r.message as { data: { type: string } }).data.type);
  return {
    ...u,
    phone,
    types: () => all().slice(from),
    reset: () => {
      from = all().length;
    },
  };
}

/** Friends, and the phones' lists emptied of the friend request it took. */
async function friends(a: Phone, b: Phone): Promise<void> {
  await w.api.befriend(a, b);
  await settled(w.t);
  a.reset();
  b.reset();
}

async function startCall(caller: IssuedUser, conversationId: string, extra: Record<string, unknown> = {}) {
  const response = await w.t.http
    .post('/app/sdk/calls/start')
    .set(...bearer(caller.token))
    .send({
      conversation_id: conversationId,
      media: 'audio',
      client_call_id: `cc-${randomBytes(6).toString('hex')}`,
      device_id: deviceId('caller'),
      ...extra,
    });
  expect({ code: response.body.code, msg: response.body.msg }).toEqual({ code: 0, msg: 'ok' });
  return response.body.data as { call: { call_id: string } };
}

describe('a message', () => {
  it('one-to-one: the peer on each of their devices, never the sender', async () => {
    const sender = await withPhone();
    const peer = await withPhone();
    await friends(sender, peer);
    const apns = apnsToken();
    const huawei = huaweiToken();
    const xiaomi = xiaomiRegId();
    await registerOk(w.t, peer, { device_id: deviceId(), provider: 'apns', token: apns, platform: 'ios' });
    await registerOk(w.t, peer, { device_id: deviceId(), provider: 'huawei', token: huawei, platform: 'android' });
    await registerOk(w.t, peer, { device_id: deviceId(), provider: 'xiaomi', token: xiaomi, platform: 'android' });
    await w.api.send(sender, friendCid(peer), 'hi');
    await settled(w.t);
    expect({
      sender: sender.types(),
      fcm: peer.types(),
      apns: w.apns!.received.filter((r) => r.token === apns).length,
      huawei: w.huawei!.received.filter((r) => r.token === huawei).length,
      xiaomi: w.xiaomi!.received.filter((r) => r.token === xiaomi).length,
    }).toEqual({ sender: [], fcm: ['message'], apns: 1, huawei: 1, xiaomi: 1 });
  });

  it('in a group: every member but the sender', async () => {
    const [owner, a, b] = [await withPhone(), await withPhone(), await withPhone()];
    const groupId = await w.api.createGroup(owner, [a, b]);
    await settled(w.t);
    const before = [owner.types().length, a.types().length, b.types().length];
    await w.api.send(a, groupCid(groupId), 'hello group');
    await settled(w.t);
    expect([owner.types().length - before[0], a.types().length - before[1], b.types().length - before[2]]).toEqual([
      1, 0, 1,
    ]);
  });

  it("a host's system notice: every member", async () => {
    const [a, b] = [await withPhone(), await withPhone()];
    const response = await w.t.http
      .post('/app/server/messages/notice')
      .set(...hostAuth())
      .send({
        request_id: `n-${randomBytes(4).toString('hex')}`,
        user_ids: [a.userId, b.userId],
        content: { text: 'Maintenance tonight' },
      });
    expect(response.body.code).toBe(0);
    await settled(w.t);
    expect([a.types(), b.types()]).toEqual([['message'], ['message']]);
  });

  it('not in a conversation the recipient muted, counted as muted', async () => {
    const [sender, peer] = [await withPhone(), await withPhone()];
    await friends(sender, peer);
    await w.api.setting(peer, 'mute', friendCid(sender), true);
    const muted = await metricValue(w.t, 'im_push_skipped_total', { reason: 'muted' });
    await w.api.send(sender, friendCid(peer), 'psst');
    await settled(w.t);
    expect(peer.types()).toEqual([]);
    expect(await metricValue(w.t, 'im_push_skipped_total', { reason: 'muted' })).toBe(muted + 1);
  });

  it('not while any connection of the recipient is live; again once it closed', async () => {
    const [sender, peer] = [await withPhone(), await withPhone()];
    await friends(sender, peer);
    const url = await listen(w.t);
    const online = await metricValue(w.t, 'im_push_skipped_total', { reason: 'online' });
    const socket = await connect(url, { auth: { token: peer.token } });
    try {
      await w.api.send(sender, friendCid(peer), 'while online');
      await settled(w.t);
      expect(peer.types()).toEqual([]);
      expect(await metricValue(w.t, 'im_push_skipped_total', { reason: 'online' })).toBe(online + 1);
    } finally {
      socket.close();
    }
    // The server sees the connection close a moment later (longer on a loaded machine).
    const presence = w.t.app.get(PresenceService);
    await eventually(async () => !(await presence.onlineAmong([peer.id])).has(peer.id), 'the peer to be offline');
    await w.api.send(sender, friendCid(peer), 'after leaving');
    await settled(w.t);
    expect(peer.types()).toEqual(['message']);
  });

  it('no_device counts a recipient whose devices cannot take the event (a VoIP token for a message), not one with none', async () => {
    const sender = await withPhone();
    const [bare, voipOnly] = await w.api.users(2);
    await w.api.befriend(sender, bare);
    await w.api.befriend(sender, voipOnly);
    await settled(w.t);
    const voip = apnsToken();
    await registerOk(w.t, voipOnly, { device_id: deviceId(), provider: 'apns_voip', token: voip, platform: 'ios' });
    const none = await metricValue(w.t, 'im_push_skipped_total', { reason: 'no_device' });
    await w.api.send(sender, friendCid(bare), 'nobody home');
    await settled(w.t);
    const afterBare = await metricValue(w.t, 'im_push_skipped_total', { reason: 'no_device' });
    await w.api.send(sender, friendCid(voipOnly), 'not for PushKit');
    await settled(w.t);
    expect({
      bare: afterBare - none,
      voipOnly: (await metricValue(w.t, 'im_push_skipped_total', { reason: 'no_device' })) - afterBare,
      voipPushes: w.apns!.received.filter((r) => r.token === voip).length,
    }).toEqual({ bare: 0, voipOnly: 1, voipPushes: 0 });
  });
});

describe('the device a notification goes to', () => {
  it('a replaced token gets nothing more; a moved token nothing of its old owner', async () => {
    const [sender, peer, next] = [await withPhone(), await withPhone(), await withPhone()];
    await friends(sender, peer);
    const replaced = FakeFcm.deviceToken();
    const current = FakeFcm.deviceToken();
    const tablet = deviceId('tablet');
    await registerOk(w.t, peer, { device_id: tablet, provider: 'fcm', token: replaced, platform: 'android' });
    await registerOk(w.t, peer, { device_id: tablet, provider: 'fcm', token: current, platform: 'android' });
    await registerOk(w.t, next, { device_id: deviceId(), provider: 'fcm', token: peer.phone, platform: 'android' });
    await w.api.send(sender, friendCid(peer), 'where does it go');
    await settled(w.t);
    const count = (token: string) => w.fcm!.received.filter((r) => r.token === token).length;
    expect({ replaced: count(replaced), current: count(current), moved: peer.types() }).toEqual({
      replaced: 0,
      current: 1,
      moved: [],
    });
  });
});

describe('a call', () => {
  it('rings the callee, not the caller, even in a muted conversation', async () => {
    const [caller, callee] = [await withPhone(), await withPhone()];
    await friends(caller, callee);
    await w.api.setting(callee, 'mute', friendCid(caller), true);
    await startCall(caller, friendCid(callee));
    await settled(w.t);
    expect({ caller: caller.types(), callee: callee.types() }).toEqual({ caller: [], callee: ['call'] });
  });

  it('in a group: the callees named, not the others', async () => {
    const [owner, a, b] = [await withPhone(), await withPhone(), await withPhone()];
    const groupId = await w.api.createGroup(owner, [a, b]);
    await settled(w.t);
    const before = [a.types().length, b.types().length];
    await startCall(owner, groupCid(groupId), { user_ids: [a.userId] });
    await settled(w.t);
    expect({
      owner: owner.types().filter((t) => t === 'call'),
      a: a.types().slice(before[0]),
      b: b.types().slice(before[1]),
    }).toEqual({
      owner: [],
      a: ['call'],
      b: [],
    });
  });
});

describe('a friend request and a group invitation', () => {
  it('the user asked, not the asker; accepting it notifies nobody', async () => {
    const [asker, asked] = [await withPhone(), await withPhone()];
    const { request } = await w.api.friendRequest(asker, asked);
    await settled(w.t);
    expect({ asker: asker.types(), asked: asked.types() }).toEqual({ asker: [], asked: ['friend_request'] });
    const accepted = await w.t.http
      .post('/app/sdk/friends/requests/accept')
      .set(...bearer(asked.token))
      .send({ id: request.id });
    expect(accepted.body.code).toBe(0);
    await settled(w.t);
    expect({ asker: asker.types(), asked: asked.types() }).toEqual({ asker: [], asked: ['friend_request'] });
  });

  it('the users added to a group, not the operator nor the members already in it', async () => {
    const [owner, member, added] = [await withPhone(), await withPhone(), await withPhone()];
    const groupId = await w.api.createGroup(owner, [member]);
    await settled(w.t);
    const before = { owner: owner.types().length, member: member.types().length };
    await w.api.addMembers(owner, groupId, [added]);
    await settled(w.t);
    expect({
      owner: owner.types().slice(before.owner),
      member: member.types().slice(before.member),
      added: added.types(),
    }).toEqual({ owner: [], member: [], added: ['group_invitation'] });
  });
});

describe('users who must get nothing', () => {
  const sendTo = async (peer: Phone) => {
    const sender = await withPhone();
    await friends(sender, peer);
    return sender;
  };

  it('a disabled user: nothing, and the registration is gone when enabled again', async () => {
    const peer = await withPhone();
    const sender = await withPhone();
    const groupId = await w.api.createGroup(sender, [peer]);
    await settled(w.t);
    peer.reset();
    const host = (disabled: boolean) =>
      w.t.http
        .post('/app/sdk/users/status')
        .set(...hostAuth())
        .send({ user_id: peer.userId, disabled });
    expect((await host(true)).body.code).toBe(0);
    await w.api.send(sender, groupCid(groupId), 'while disabled');
    await settled(w.t);
    expect(peer.types()).toEqual([]);
    expect((await host(false)).body.code).toBe(0);
    const again = await issueUser(w.t, { user_id: peer.userId });
    expect((await settingsGet(w.t, again)).data).toMatchObject({ devices: [] });
  });

  it('a user whose tokens were revoked after registering: nothing, registration removed; a new one works', async () => {
    const peer = await withPhone();
    const sender = await sendTo(peer);
    const revoked = await w.t.http
      .post('/app/sdk/users/revoke-tokens')
      .set(...hostAuth())
      .send({ user_id: peer.userId });
    expect(revoked.body.code).toBe(0);
    await w.api.send(sender, friendCid(peer), 'after revoke');
    await settled(w.t);
    expect(peer.types()).toEqual([]);
    const fresh = await issueUser(w.t, { user_id: peer.userId });
    expect((await settingsGet(w.t, fresh)).data).toMatchObject({ devices: [] });
    const again = await withPhone(fresh);
    await w.api.send(sender, friendCid(peer), 'registered again');
    await settled(w.t);
    expect(again.types()).toEqual(['message']);
  });

  it('an erased user: registrations, settings and notification records are dropped', async () => {
    const peer = await withPhone();
    const sender = await sendTo(peer);
    await w.api.send(sender, friendCid(peer), 'before erasure');
    await settled(w.t);
    expect(peer.types()).toEqual(['message']);
    await w.t.http
      .post('/app/sdk/push/settings')
      .set(...bearer(peer.token))
      .send({ preview: 'none', quiet_hours: null });
    const erased = await w.t.http
      .post('/app/server/users/erase')
      .set(...hostAuth())
      .send({ user_id: peer.userId, request_id: `e-${randomBytes(4).toString('hex')}` });
    expect(erased.body.code).toBe(0);
    const { DataSource } = await import('typeorm');
    const db = w.t.app.get(DataSource);
    const tables = (await db.query(
      w.t.driver === 'sqlite'
        ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'push%'"
        : "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE 'push%'",
    )) as Array<{ name: string }>;
    const left: string[] = [];
    for (const { name } of tables) {
      if (name === 'push_dispatch') continue;
      const rows = (await db.query(`SELECT * FROM ${name}`)) as Array<Record<string, unknown>>;
      for (const row of rows)
        if (JSON.stringify(row).includes(peer.phone) || String(row.user_id) === peer.id) left.push(name);
    }
    expect(left).toEqual([]);
  });
});
