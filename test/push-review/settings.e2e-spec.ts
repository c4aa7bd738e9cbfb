// docs/push.md "The user's settings": what POST /push/settings accepts, what GET answers, null
// for the default, and quiet hours on the wall clock of the user's time zone — crossing
// midnight, all day, and daylight saving — moved with the app's TestClock.
import { friendCid } from '../helpers/api-client';
import { IssuedUser } from '../helpers/test-app';
import { FakeFcm } from '../push/fakes/fake-fcm';
import {
  PushWorld,
  bootWorld,
  deviceId,
  metricValue,
  registerOk,
  settingsGet,
  settingsPost,
  settled,
} from './review-kit';

let w: PushWorld;
beforeAll(async () => {
  w = await bootWorld({ providers: ['fcm'] });
});
afterAll(async () => {
  await w.close();
});
afterEach(() => {
  w.t.clock.set(Date.now());
  w.t.clock.release();
});

async function pair(): Promise<{ sender: IssuedUser; receiver: IssuedUser; token: string }> {
  const [sender, receiver] = await w.api.users(2);
  await w.api.befriend(sender, receiver);
  // The friend request is decided before the device exists (the dispatcher waits a moment for a burst).
  await settled(w.t);
  const token = FakeFcm.deviceToken();
  await registerOk(w.t, receiver, { device_id: deviceId(), provider: 'fcm', token, platform: 'android' });
  return { sender, receiver, token };
}

/** Whether a message sent now reaches the receiver's phone. */
async function notifiedNow(p: { sender: IssuedUser; receiver: IssuedUser; token: string }): Promise<boolean> {
  const before = w.fcm!.received.filter((r) => r.token === p.token).length;
  await w.api.send(p.sender, friendCid(p.receiver), `at ${new Date(w.t.clock.now()).toISOString()}`);
  await settled(w.t);
  return w.fcm!.received.filter((r) => r.token === p.token).length > before;
}

describe('settings: what is accepted and answered', () => {
  it('a fresh user: null preview, the default effective, no quiet hours', async () => {
    const user = await w.api.user();
    const reply = await settingsGet(w.t, user);
    expect(reply.data).toEqual({ preview: null, effective_preview: 'full', quiet_hours: null, devices: [] });
  });

  it('replaces both settings and answers them; null goes back to the default', async () => {
    const user = await w.api.user();
    const quiet = { start: '22:30', end: '07:00', timezone: 'Asia/Shanghai' };
    const set = await settingsPost(w.t, user, { preview: 'sender', quiet_hours: quiet });
    expect(set.code).toBe(0);
    expect(set.data).toMatchObject({ preview: 'sender', effective_preview: 'sender', quiet_hours: quiet });
    expect((await settingsGet(w.t, user)).data).toMatchObject({ preview: 'sender', quiet_hours: quiet });
    const cleared = await settingsPost(w.t, user, { preview: null, quiet_hours: null });
    expect(cleared.code).toBe(0);
    expect((await settingsGet(w.t, user)).data).toMatchObject({
      preview: null,
      effective_preview: 'full',
      quiet_hours: null,
    });
  });

  it.each([
    [{ quiet_hours: null }, 'preview'],
    [{ preview: 'full' }, 'quiet_hours'],
    [{ preview: 'all', quiet_hours: null }, 'preview'],
    [{ preview: 1, quiet_hours: null }, 'preview'],
    [{ preview: null, quiet_hours: 'none' }, 'quiet_hours'],
    [{ preview: null, quiet_hours: { end: '07:00', timezone: 'UTC' } }, 'start'],
    [{ preview: null, quiet_hours: { start: '22:00', timezone: 'UTC' } }, 'end'],
    [{ preview: null, quiet_hours: { start: '22:00', end: '07:00' } }, 'timezone'],
    [{ preview: null, quiet_hours: { start: '24:00', end: '07:00', timezone: 'UTC' } }, 'start'],
    [{ preview: null, quiet_hours: { start: '7:00', end: '07:00', timezone: 'UTC' } }, 'start'],
    [{ preview: null, quiet_hours: { start: '22:00', end: '07:60', timezone: 'UTC' } }, 'end'],
    [{ preview: null, quiet_hours: { start: '22:00', end: '07:00', timezone: 'Mars/Olympus' } }, 'timezone'],
    [{ preview: null, quiet_hours: { start: '22:00', end: '07:00', timezone: 'x'.repeat(5000) } }, 'timezone'],
    [{ preview: null, quiet_hours: { start: '22:00', end: '07:00', timezone: 'Asia/Shanghai\ud800' } }, 'timezone'],
  ])('refuses case %#, naming the field, and keeps the previous settings', async (body, field) => {
    const user = await w.api.user();
    expect((await settingsPost(w.t, user, { preview: 'none', quiet_hours: null })).code).toBe(0);
    const reply = await settingsPost(w.t, user, body);
    expect({ status: reply.status, code: reply.code, named: reply.msg?.includes(field) }).toEqual({
      status: 200,
      code: 1004,
      named: true,
    });
    expect((await settingsGet(w.t, user)).data).toMatchObject({ preview: 'none', quiet_hours: null });
  });
});

describe('PUSH_PREVIEW_DEFAULT', () => {
  it('is the effective level of a user who chose none', async () => {
    const other = await bootWorld({ providers: ['fcm'], env: { PUSH_PREVIEW_DEFAULT: 'none' } });
    try {
      const user = await other.api.user();
      expect((await settingsGet(other.t, user)).data).toMatchObject({ preview: null, effective_preview: 'none' });
      await settingsPost(other.t, user, { preview: 'full', quiet_hours: null });
      expect((await settingsGet(other.t, user)).data).toMatchObject({ preview: 'full', effective_preview: 'full' });
    } finally {
      await other.close();
    }
  });
});

// Today's date at a UTC time: a time near the real one, so the providers' credentials stay valid.
const todayAt = (hhmm: string, dayOffset = 0): number => {
  const day = new Date(Date.now() + dayOffset * 86_400_000).toISOString().slice(0, 10);
  return Date.parse(`${day}T${hhmm}:00.000Z`);
};

describe('quiet hours', () => {
  it('cross midnight when end is earlier than start (Asia/Shanghai, UTC+8)', async () => {
    const p = await pair();
    await settingsPost(w.t, p.receiver, {
      preview: null,
      quiet_hours: { start: '22:30', end: '07:00', timezone: 'Asia/Shanghai' },
    });
    const cases: Array<[string, number, boolean]> = [
      ['12:00 local', todayAt('04:00'), true],
      ['22:29 local', todayAt('14:29'), true],
      ['22:31 local', todayAt('14:31'), false],
      ['23:59 local', todayAt('15:59'), false],
      ['00:30 local', todayAt('16:30'), false],
      ['06:59 local', todayAt('22:59'), false],
      ['07:01 local', todayAt('23:01'), true],
    ];
    const seen: Array<[string, boolean]> = [];
    for (const [label, at] of cases) {
      w.t.clock.set(at);
      seen.push([label, await notifiedNow(p)]);
    }
    expect(seen).toEqual(cases.map(([label, , expected]) => [label, expected]));
  });

  it('start equal to end is all day; null is none', async () => {
    const p = await pair();
    await settingsPost(w.t, p.receiver, {
      preview: null,
      quiet_hours: { start: '09:15', end: '09:15', timezone: 'UTC' },
    });
    const seen: boolean[] = [];
    for (const at of [todayAt('00:00'), todayAt('09:15'), todayAt('15:00'), todayAt('23:59')]) {
      w.t.clock.set(at);
      seen.push(await notifiedNow(p));
    }
    await settingsPost(w.t, p.receiver, { preview: null, quiet_hours: null });
    w.t.clock.set(todayAt('09:15'));
    seen.push(await notifiedNow(p));
    expect(seen).toEqual([false, false, false, false, true]);
  });

  it('follow daylight saving now in force (Australia/Sydney is UTC+11 in summer, +10 otherwise)', async () => {
    // Sydney keeps daylight saving from October to April; the other half of the year the
    // window below is the one on the wall clock. Pick the case for the real date.
    const offset = new Intl.DateTimeFormat('en-US', { timeZone: 'Australia/Sydney', timeZoneName: 'shortOffset' })
      .formatToParts(new Date())
      .find((part) => part.type === 'timeZoneName')!.value;
    const hours = offset === 'GMT+11' ? 11 : 10;
    const p = await pair();
    await settingsPost(w.t, p.receiver, {
      preview: null,
      quiet_hours: { start: '12:00', end: '13:00', timezone: 'Australia/Sydney' },
    });
    const utc = (localHour: number, minute: number): number =>
      todayAt(`${String((localHour - hours + 24) % 24).padStart(2, '0')}:${String(minute).padStart(2, '0')}`);
    const seen: boolean[] = [];
    for (const at of [utc(12, 30), utc(11, 30), utc(13, 30)]) {
      w.t.clock.set(at);
      seen.push(await notifiedNow(p));
    }
    expect(seen).toEqual([false, true, true]);
  });

  it('follow a daylight-saving change (America/New_York, March 2026)', async () => {
    // 8 March 2026 02:00 EST became 03:00 EDT: 09:30 local is 14:30 UTC before and 13:30 UTC after.
    const p = await pair();
    await settingsPost(w.t, p.receiver, {
      preview: null,
      quiet_hours: { start: '09:00', end: '10:00', timezone: 'America/New_York' },
    });
    const cases: Array<[string, number, boolean]> = [
      ['7 Mar 09:30 EST', Date.parse('2026-03-07T14:30:00Z'), false],
      ['7 Mar 08:30 EST', Date.parse('2026-03-07T13:30:00Z'), true],
      ['9 Mar 09:30 EDT', Date.parse('2026-03-09T13:30:00Z'), false],
      ['9 Mar 10:30 EDT', Date.parse('2026-03-09T14:30:00Z'), true],
    ];
    const seen: Array<[string, boolean]> = [];
    for (const [label, at] of cases) {
      w.t.clock.set(at);
      seen.push([label, await notifiedNow(p)]);
    }
    expect(seen).toEqual(cases.map(([label, , expected]) => [label, expected]));
  });

  it('follow the wall clock through the repeated hour of a fall-back (America/New_York, 1 November 2026)', async () => {
    // 02:00 EDT became 01:00 EST: 01:30 came twice, at 05:30 and 06:30 UTC.
    const p = await pair();
    await settingsPost(w.t, p.receiver, {
      preview: null,
      quiet_hours: { start: '01:00', end: '02:00', timezone: 'America/New_York' },
    });
    const cases: Array<[string, number, boolean]> = [
      ['00:30 EDT', Date.parse('2026-11-01T04:30:00Z'), true],
      ['01:30 EDT', Date.parse('2026-11-01T05:30:00Z'), false],
      ['01:30 EST', Date.parse('2026-11-01T06:30:00Z'), false],
      ['02:30 EST', Date.parse('2026-11-01T07:30:00Z'), true],
    ];
    const seen: Array<[string, boolean]> = [];
    for (const [label, at] of cases) {
      w.t.clock.set(at);
      seen.push([label, await notifiedNow(p)]);
    }
    expect(seen).toEqual(cases.map(([label, , expected]) => [label, expected]));
  });

  it("use the zone's own offset, minutes included (Asia/Kathmandu, UTC+5:45)", async () => {
    const p = await pair();
    await settingsPost(w.t, p.receiver, {
      preview: null,
      quiet_hours: { start: '10:00', end: '10:30', timezone: 'Asia/Kathmandu' },
    });
    const cases: Array<[string, number, boolean]> = [
      ['09:55 local', todayAt('04:10'), true],
      ['10:05 local', todayAt('04:20'), false],
      ['10:25 local', todayAt('04:40'), false],
      ['10:35 local', todayAt('04:50'), true],
    ];
    const seen: Array<[string, boolean]> = [];
    for (const [label, at] of cases) {
      w.t.clock.set(at);
      seen.push([label, await notifiedNow(p)]);
    }
    expect(seen).toEqual(cases.map(([label, , expected]) => [label, expected]));
  });

  it('silence calls too', async () => {
    const p = await pair();
    await settingsPost(w.t, p.receiver, {
      preview: null,
      quiet_hours: { start: '00:00', end: '00:00', timezone: 'UTC' },
    });
    const started = await w.t.http
      .post('/app/sdk/calls/start')
      .set('Authorization', `Bearer ${p.sender.token}`)
      .send({
        conversation_id: friendCid(p.receiver),
        media: 'audio',
        client_call_id: `cc-${deviceId()}`,
        device_id: 'caller',
      });
    expect(started.body.code).toBe(0);
    await settled(w.t);
    expect(w.fcm!.received.filter((r) => r.token === p.token)).toEqual([]);
  });

  it('silence friend requests too, count quiet_hours skips, and are not sent later', async () => {
    const [asker, asked] = await w.api.users(2);
    const token = FakeFcm.deviceToken();
    await registerOk(w.t, asked, { device_id: deviceId(), provider: 'fcm', token, platform: 'android' });
    await settingsPost(w.t, asked, { preview: null, quiet_hours: { start: '00:00', end: '00:00', timezone: 'UTC' } });
    const skipped = await metricValue(w.t, 'im_push_skipped_total', { reason: 'quiet_hours' });
    await w.api.friendRequest(asker, asked);
    await settled(w.t);
    await settingsPost(w.t, asked, { preview: null, quiet_hours: null });
    await settled(w.t);
    expect(w.fcm!.received.filter((r) => r.token === token)).toEqual([]);
    expect(await metricValue(w.t, 'im_push_skipped_total', { reason: 'quiet_hours' })).toBe(skipped + 1);
  });
});
