// Offline push end to end against a fake FCM speaking HTTP v1 and Google's OAuth2 token
// endpoint: who gets a notification (offline, not muted, not in quiet hours, not the sender),
// what it carries, and what happens to registrations (dead tokens, a token moving between users,
// revoked users). Every app runs on a database of its own: the dispatcher reads one outbox.
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { RetentionService } from '../../src/retention/retention.service';
import { MetricsService } from '../../src/metrics/metrics.service';
import { ApiClient, friendCid, groupCid } from '../helpers/api-client';
import { adminSession } from '../helpers/admin-client';
import { IsolatedDatabase, isolatedDatabase } from '../helpers/isolated-database';
import { connect, listen } from '../helpers/realtime';
import { IssuedUser, TestApp, bearer, issueUser, okData, startTestApp } from '../helpers/test-app';
import { FakeFcm } from './fakes/fake-fcm';
import {
  FAST_PUSH,
  PushFiles,
  androidDevice,
  eventually,
  eventuallyEqual,
  fcmEnv,
  register,
  settled,
} from './push-kit';

jest.setTimeout(120_000);

describe('offline push (FCM)', () => {
  let db: IsolatedDatabase;
  let t: TestApp;
  let api: ApiClient;
  let fcm: FakeFcm;
  const files = new PushFiles();

  beforeAll(async () => {
    fcm = await FakeFcm.start();
    db = await isolatedDatabase();
    t = await startTestApp({ ...db.env, ...FAST_PUSH, ...(await fcmEnv(fcm, files)) });
    api = new ApiClient(t);
  });

  afterAll(async () => {
    await t?.close();
    await fcm?.close();
    await db?.drop();
    files.cleanup();
  });

  /** Two friends, each with one Android device. */
  async function pair(): Promise<{ a: IssuedUser; b: IssuedUser; aToken: string; bToken: string }> {
    const [a, b] = [await issueUser(t), await issueUser(t)];
    await api.befriend(a, b);
    // The friend request is decided before the devices exist: only what follows notifies.
    await settled(t);
    const [aToken, bToken] = [FakeFcm.deviceToken(), FakeFcm.deviceToken()];
    await register(t, a, androidDevice(aToken));
    await register(t, b, androidDevice(bToken));
    return { a, b, aToken, bToken };
  }

  const to = (token: string) => fcm.received.filter((r) => r.token === token);

  async function settings(user: IssuedUser): Promise<{ devices: Array<{ device_id: string; provider: string }> }> {
    return okData(await t.http.get('/app/sdk/push/settings').set(...bearer(user.token)));
  }

  it('refuses bad registrations with the field named, and changes nothing', async () => {
    const u = await issueUser(t);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...androidDevice(), provider: 'gcm' }, 'provider'],
      [{ ...androidDevice(), provider: 'xiaomi' }, 'provider'],
      [{ ...androidDevice(), platform: 'ios', provider: 'huawei' }, 'provider'],
      [{ ...androidDevice(), platform: 'web' }, 'platform'],
      [{ ...androidDevice(), token: 'short' }, 'token'],
      [{ ...androidDevice(), token: `${'x'.repeat(100)} ${'y'.repeat(20)}` }, 'token'],
      [{ ...androidDevice(), token: null }, 'token'],
      [{ ...androidDevice(), device_id: 'a/b' }, 'device_id'],
      [{ ...androidDevice(), device_id: 'd'.repeat(65) }, 'device_id'],
      [{ ...androidDevice(), locale: 'english please' }, 'locale'],
      [{ ...androidDevice(), token: 1234567890 }, 'token'],
    ];
    for (const [body, field] of cases) {
      const res = await t.http
        .post('/app/sdk/push/register')
        .set(...bearer(u.token))
        .send(body);
      expect({ field, code: res.body.code }).toEqual({ field, code: 1004 });
      expect(res.body.msg).toContain(field);
    }
    expect((await settings(u)).devices).toEqual([]);
    const unauthenticated = await t.http.post('/app/sdk/push/register').send(androidDevice());
    expect(unauthenticated.body.code).toBe(1101);
  });

  it('sends an offline recipient one notification per device, none to the sender, with text, badge and data', async () => {
    const { a, b, aToken, bToken } = await pair();
    const second = FakeFcm.deviceToken();
    await register(t, b, { ...androidDevice(second), locale: 'zh-CN' });
    const sent = await api.send(a, friendCid(b), 'dinner at 8? 🍜');
    await eventually(() => to(bToken).length === 1 && to(second).length === 1, 'both of b’s devices');
    await settled(t);
    expect(to(aToken)).toEqual([]);
    const [shown] = fcm.shown(bToken);
    expect(shown).toMatchObject({
      title: expect.stringContaining('Nick'),
      body: 'dinner at 8? 🍜',
      badge: 1,
      tag: sent.event_id,
      data: {
        type: 'message',
        event_id: sent.event_id,
        conversation_id: friendCid(a),
        message_id: sent.message.mid,
        sender_id: a.userId,
      },
    });
    expect(to(bToken)[0]).toMatchObject({ collapseKey: sent.event_id, priority: 'HIGH' });
    // A second message: the badge counts both (the unread total, not a local count).
    await api.send(a, friendCid(b), 'or 9');
    await eventually(() => to(bToken).length === 2, 'the second notification');
    expect(fcm.shown(bToken).map((s) => s.badge)).toContain(2);
  });

  it('sends nothing to a user online on a socket, and again once they are gone', async () => {
    const { a, b, bToken } = await pair();
    const socket = await connect(await listen(t), { auth: { token: b.token } });
    try {
      await eventually(async () => (await presenceOnline(b)) === true, 'b online');
      await api.send(a, friendCid(b), 'you are here');
      await settled(t);
      expect(to(bToken)).toEqual([]);
    } finally {
      socket.close();
    }
    await eventually(async () => (await presenceOnline(b)) === false, 'b offline');
    await api.send(a, friendCid(b), 'now you are not');
    await eventually(() => to(bToken).length === 1, 'the notification after disconnect');
  });

  async function presenceOnline(user: IssuedUser): Promise<boolean> {
    const { PresenceService } = await import('../../src/realtime/presence.service');
    return (await t.app.get(PresenceService).onlineAmong([user.id])).has(user.id);
  }

  it('respects a muted conversation, quiet hours and the preview level', async () => {
    const { a, b, bToken } = await pair();
    await api.setting(b, 'mute', friendCid(a), true);
    await api.send(a, friendCid(b), 'muted');
    await settled(t);
    expect(to(bToken)).toEqual([]);
    await api.setting(b, 'mute', friendCid(a), false);

    // Quiet all day (start equal to end) in b's zone.
    const quiet = { start: '00:00', end: '00:00', timezone: 'Asia/Shanghai' };
    okData(
      await t.http
        .post('/app/sdk/push/settings')
        .set(...bearer(b.token))
        .send({ preview: 'none', quiet_hours: quiet }),
    );
    await api.send(a, friendCid(b), 'quiet please');
    await settled(t);
    expect(to(bToken)).toEqual([]);

    const reply = okData<Record<string, unknown>>(
      await t.http
        .post('/app/sdk/push/settings')
        .set(...bearer(b.token))
        .send({ preview: 'none', quiet_hours: null }),
    );
    expect(reply).toMatchObject({ preview: 'none', effective_preview: 'none', quiet_hours: null });
    await api.send(a, friendCid(b), 'the secret plan');
    await eventually(() => to(bToken).length === 1, 'the notification after quiet hours');
    const text = JSON.stringify(to(bToken)[0].message);
    expect(text).not.toContain('secret plan');
    expect(text).not.toContain(a.userId);
    // Nor the conversation ID, which encodes the peer's user ID.
    expect(text).not.toContain(friendCid(a));
    expect(to(bToken)[0].message).toMatchObject({ data: { type: 'message' } });
    expect(fcm.shown(bToken)[0]).toMatchObject({ title: null, body: 'You have a new message' });
  });

  it('refuses bad settings with the field named', async () => {
    const u = await issueUser(t);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ preview: 'all', quiet_hours: null }, 'preview'],
      [{ quiet_hours: null }, 'preview'],
      [{ preview: null }, 'quiet_hours'],
      [{ preview: null, quiet_hours: { start: '24:00', end: '07:00', timezone: 'UTC' } }, 'start'],
      [{ preview: null, quiet_hours: { start: '22:00', end: '7:00', timezone: 'UTC' } }, 'end'],
      [{ preview: null, quiet_hours: { start: '22:00', end: '07:00', timezone: 'Mars/Olympus' } }, 'timezone'],
      [{ preview: null, quiet_hours: { start: '22:00', end: '07:00' } }, 'timezone'],
      [{ preview: null, quiet_hours: 'always' }, 'quiet_hours'],
      [{ preview: true, quiet_hours: null }, 'preview'],
    ];
    for (const [body, field] of cases) {
      const res = await t.http
        .post('/app/sdk/push/settings')
        .set(...bearer(u.token))
        .send(body);
      expect({ field, code: res.body.code }).toEqual({ field, code: 1004 });
      expect(res.body.msg).toContain(field);
    }
    const current = okData(await t.http.get('/app/sdk/push/settings').set(...bearer(u.token)));
    expect(current).toEqual({ preview: null, effective_preview: 'full', quiet_hours: null, devices: [] });
  });

  it('removes a registration whose token FCM calls unregistered, and counts it', async () => {
    const { a, b, bToken } = await pair();
    fcm.markDead(bToken);
    await api.send(a, friendCid(b), 'into the void');
    await eventually(async () => (await settings(b)).devices.length === 0, 'the dead registration to go');
    // The worker counts the removal once its delete has committed, a moment after the row is gone.
    await eventuallyEqual(
      () => t.app.get(MetricsService).registry.metrics(),
      expect.stringMatching(/im_push_dead_tokens_removed_total\{provider="fcm"\} [1-9]/),
    );
    const metrics = await t.app.get(MetricsService).registry.metrics();
    expect(metrics).toMatch(/im_push_notifications_total\{provider="fcm",outcome="dead_token"\} [1-9]/);
  });

  it('moves a token to the user who registered it last, and unregisters', async () => {
    const { a, b, bToken } = await pair();
    const c = await issueUser(t);
    await api.befriend(a, c);
    await settled(t);
    await register(t, c, androidDevice(bToken));
    expect((await settings(b)).devices).toEqual([]);
    await api.send(a, friendCid(b), 'for b only');
    await api.send(a, friendCid(c), 'for c');
    await eventually(() => to(bToken).length === 1, 'c’s notification');
    await settled(t);
    expect(to(bToken)[0].message).toMatchObject({ data: { conversation_id: friendCid(a) } });
    expect(JSON.stringify(to(bToken)[0].message)).toContain('for c');

    const [device] = (await settings(c)).devices;
    const gone = okData(
      await t.http
        .post('/app/sdk/push/unregister')
        .set(...bearer(c.token))
        .send({ device_id: device.device_id }),
    );
    expect(gone).toEqual({ removed: 1 });
    const again = okData(
      await t.http
        .post('/app/sdk/push/unregister')
        .set(...bearer(c.token))
        .send({ device_id: device.device_id }),
    );
    expect(again).toEqual({ removed: 0 });
    await api.send(a, friendCid(c), 'after sign-out');
    await settled(t);
    expect(to(bToken)).toHaveLength(1);
  });

  it('drops the registrations of a user whose tokens are revoked or who is disabled', async () => {
    const { a, b } = await pair();
    okData(await api.raw.revokeTokens(b.userId));
    await eventually(async () => {
      const [row] = (await t.app
        .get(DataSource)
        .query('SELECT COUNT(*) AS n FROM push_registrations WHERE user_id = ?', [b.id])) as Array<{
        n: string | number;
      }>;
      return Number(row.n) === 0;
    }, 'b’s registrations to go');
    okData(await api.raw.userStatus(a.userId, true));
    await eventually(async () => {
      const [row] = (await t.app
        .get(DataSource)
        .query('SELECT COUNT(*) AS n FROM push_registrations WHERE user_id = ?', [a.id])) as Array<{
        n: string | number;
      }>;
      return Number(row.n) === 0;
    }, 'a’s registrations to go');
    // Registering again needs a token the host issues anew, and a disabled user gets none.
    expect((await api.raw.token({ user_id: a.userId, nickname: 'A' })).body.code).toBe(1003);
  });

  it('a timed disable drops the devices; once it ends the SDK registers again and is notified', async () => {
    const { a, b } = await pair();
    const moderator = await adminSession(t, 'moderator');
    const registrations = async (): Promise<number> => {
      const [row] = (await t.app
        .get(DataSource)
        .query('SELECT COUNT(*) AS n FROM push_registrations WHERE user_id = ?', [b.id])) as Array<{
        n: string | number;
      }>;
      return Number(row.n);
    };
    const now = Date.now();
    t.clock.set(now);
    try {
      okData(
        await moderator.post('/app/admin/users/status', {
          user_id: b.userId,
          disabled: true,
          duration_seconds: 60,
          reason: 'Cooling off',
        }),
      );
      await eventually(async () => (await registrations()) === 0, 'b’s registrations to go');
      const refused = await t.http
        .post('/app/sdk/push/register')
        .set(...bearer(b.token))
        .send(androidDevice());
      expect(refused.body).toMatchObject({ code: 1003, msg: 'Cooling off' });
      // The disable has lapsed at its end, whether or not the sweep has cleared the flag yet.
      t.clock.set(now + 60_000);
      const token = FakeFcm.deviceToken();
      await register(t, b, androidDevice(token));
      await api.send(a, friendCid(b), 'welcome back');
      await settled(t);
      expect(to(token)).toHaveLength(1);
    } finally {
      t.clock.release();
    }
  });

  it('erasing a user removes their registrations and settings', async () => {
    const { b } = await pair();
    okData(
      await t.http
        .post('/app/sdk/push/settings')
        .set(...bearer(b.token))
        .send({ preview: 'sender', quiet_hours: { start: '22:00', end: '06:00', timezone: 'Europe/Berlin' } }),
    );
    const erased = await t.http
      .post('/app/server/users/erase')
      .set('Authorization', `Bearer ${t.config.sdkSecret}`)
      .send({ user_id: b.userId });
    expect(erased.body).toMatchObject({ code: 0, data: { status: 'erased' } });
    const data = t.app.get(DataSource);
    const [registrations] = (await data.query('SELECT COUNT(*) AS n FROM push_registrations WHERE user_id = ?', [
      b.id,
    ])) as Array<{
      n: string | number;
    }>;
    const [settingsRows] = (await data.query('SELECT COUNT(*) AS n FROM push_settings WHERE user_id = ?', [
      b.id,
    ])) as Array<{
      n: string | number;
    }>;
    expect([Number(registrations.n), Number(settingsRows.n)]).toEqual([0, 0]);
  });

  it('keeps at most 25 registrations a user, dropping the least recently registered', async () => {
    const u = await issueUser(t);
    const first = androidDevice();
    await register(t, u, first);
    for (let i = 0; i < 25; i++) await register(t, u, androidDevice());
    const devices = (await settings(u)).devices;
    expect(devices).toHaveLength(25);
    expect(devices.map((d) => d.device_id)).not.toContain(first.device_id);
    // Registering the first again brings it back, and drops the next oldest.
    await register(t, u, first);
    expect((await settings(u)).devices.map((d) => d.device_id)).toContain(first.device_id);
    expect((await settings(u)).devices).toHaveLength(25);
  });

  it('refuses a registration with a token revoked a moment ago', async () => {
    const u = await issueUser(t);
    okData(await api.raw.revokeTokens(u.userId));
    const res = await t.http
      .post('/app/sdk/push/register')
      .set(...bearer(u.token))
      .send(androidDevice());
    expect(res.body.code).toBe(1102);
    expect(
      (await t.app.get(DataSource).query('SELECT id FROM push_registrations WHERE user_id = ?', [u.id])).length,
    ).toBe(0);
  });

  it('gives up, at the retention pass, notifications no configured provider will send', async () => {
    const u = await issueUser(t);
    const data = t.app.get(DataSource);
    const eventId = randomUUID();
    await data.query(
      'INSERT INTO push_deliveries (event_id, registration_id, user_id, provider, kind, payload, status, attempts, next_attempt_at, deadline_at, claim_until, created_at) ' +
        "VALUES (?, 999999, ?, 'xiaomi', 'message', '{\"body\":\"a preview\"}', 'pending', 0, 0, 1, 0, ?)",
      [eventId, u.id, t.clock.now()],
    );
    await t.app.get(RetentionService).runOnce();
    const [row] = (await data.query('SELECT status, payload FROM push_deliveries WHERE event_id = ?', [
      eventId,
    ])) as Array<{
      status: string;
      payload: string | null;
    }>;
    expect(row).toEqual({ status: 'expired', payload: null });
  });

  it('notifies a friend request and being added to a group, not whoever did it', async () => {
    const [a, b, c] = [await issueUser(t), await issueUser(t), await issueUser(t)];
    const [aToken, bToken, cToken] = [FakeFcm.deviceToken(), FakeFcm.deviceToken(), FakeFcm.deviceToken()];
    await register(t, a, androidDevice(aToken));
    await register(t, b, androidDevice(bToken));
    await register(t, c, androidDevice(cToken));
    const request = await api.friendRequest(a, b, { message: 'climbing on Sunday?' });
    await eventually(() => to(bToken).length === 1, 'the friend request notification');
    expect(fcm.shown(bToken)[0]).toMatchObject({
      body: 'climbing on Sunday?',
      data: { type: 'friend_request', request_id: request.request.id, sender_id: a.userId },
    });
    await api.befriend(a, c);
    const groupId = await api.createGroup(a, [c]);
    await settled(t);
    const before = to(cToken).length;
    await api.addMembers(a, groupId, [b]);
    await eventually(() => to(bToken).length === 2, 'the group notification');
    expect(fcm.shown(bToken)[1]).toMatchObject({
      data: { type: 'group_invitation', group_id: groupId, conversation_id: groupCid(groupId), sender_id: a.userId },
    });
    await settled(t);
    // c was already a member: being told of b's arrival is not an invitation.
    expect(to(cToken)).toHaveLength(before);
    expect(to(aToken)).toEqual([]);
    // A group message reaches the other members, titled with the group.
    await api.send(a, groupCid(groupId), 'welcome b');
    await eventually(() => to(bToken).length === 3 && to(cToken).length === before + 1, 'the group message');
    expect(fcm.shown(cToken).at(-1)).toMatchObject({ body: expect.stringContaining(': welcome b') });
  });

  it('keeps each event to one notification per device when the same events are dispatched twice', async () => {
    const { a, b, bToken } = await pair();
    const sent = await api.send(a, friendCid(b), 'once');
    await eventually(() => to(bToken).length === 1, 'the notification');
    await settled(t);
    // The cursor moved back, as after a crash between the queueing and the cursor's save.
    const data = t.app.get(DataSource);
    const [row] = (await data.query('SELECT position FROM outbox_events WHERE event_id = ?', [
      sent.event_id,
    ])) as Array<{
      position: string | number;
    }>;
    await data.query('UPDATE push_dispatch SET cursor_position = ? WHERE id = 1', [String(BigInt(row.position) - 1n)]);
    await api.send(a, friendCid(b), 'twice?');
    await eventually(() => to(bToken).length === 2, 'the next notification');
    await settled(t);
    expect(
      to(bToken)
        .map((r) => r.collapseKey)
        .filter((key) => key === sent.event_id),
    ).toHaveLength(1);
  });
});
