// docs/push.md "How the SDK registers" and docs/api.md "Strict validation", as an app sees them:
// every refused field named with 1004, which platform each provider reaches, one registration
// per device and provider, a token moving to the last user who registered it, and unregistering.
import { FakeFcm } from '../push/fakes/fake-fcm';
import { apnsToken } from '../push/push-kit';
import { IssuedUser, hostAuth, issueUser } from '../helpers/test-app';
import {
  PushWorld,
  bootWorld,
  deviceId,
  huaweiToken,
  registerOk,
  registerRaw,
  settingsGet,
  settingsPost,
  unregisterRaw,
  xiaomiRegId,
} from './review-kit';

type Body = Record<string, unknown>;

let w: PushWorld;
beforeAll(async () => {
  w = await bootWorld();
});
afterAll(async () => {
  await w.close();
});

const tokenFor = (provider: string): string =>
  provider === 'fcm'
    ? FakeFcm.deviceToken()
    : provider === 'huawei'
      ? huaweiToken()
      : provider === 'xiaomi'
        ? xiaomiRegId()
        : apnsToken();

async function devices(user: IssuedUser): Promise<Array<{ device_id: string; provider: string; platform: string }>> {
  const reply = await settingsGet(w.t, user);
  expect(reply.code).toBe(0);
  return (reply.data as { devices: Array<{ device_id: string; provider: string; platform: string }> }).devices;
}

async function expectRefused(user: IssuedUser, body: Body, field: string): Promise<void> {
  const reply = await registerRaw(w.t, user, body);
  expect({
    body,
    status: reply.status,
    code: reply.code,
    data: reply.data ?? null,
    namesField: reply.msg?.includes(field),
  }).toEqual({
    body,
    status: 200,
    code: 1004,
    data: null,
    namesField: true,
  });
}

describe('which platform each provider reaches', () => {
  it.each([
    ['apns', 'ios'],
    ['apns_voip', 'ios'],
    ['fcm', 'android'],
    ['fcm', 'ios'],
    ['huawei', 'android'],
    ['huawei', 'harmony'],
    ['xiaomi', 'android'],
  ])('%s on %s is accepted and listed', async (provider, platform) => {
    const user = await w.api.user();
    const id = deviceId();
    const body = { device_id: id, provider, token: tokenFor(provider), platform };
    const reply = await registerRaw(w.t, user, body);
    expect({ code: reply.code, data: reply.data }).toEqual({
      code: 0,
      data: { device_id: id, provider, platform, registered_at: expect.any(Number) },
    });
    expect(await devices(user)).toEqual([expect.objectContaining({ device_id: id, provider, platform })]);
    expect(JSON.stringify((await settingsGet(w.t, user)).data)).not.toContain(body.token);
  });

  it.each([
    ['apns', 'android'],
    ['apns', 'harmony'],
    ['apns_voip', 'android'],
    ['xiaomi', 'ios'],
    ['xiaomi', 'harmony'],
    ['huawei', 'ios'],
  ])('%s on %s is refused naming platform, and nothing is stored', async (provider, platform) => {
    const user = await w.api.user();
    await expectRefused(user, { device_id: deviceId(), provider, token: tokenFor(provider), platform }, 'platform');
    expect(await devices(user)).toEqual([]);
  });
});

describe('each bad field is named (1004)', () => {
  const good = (): Body => ({
    device_id: deviceId(),
    provider: 'fcm',
    token: FakeFcm.deviceToken(),
    platform: 'android',
  });

  it.each(['device_id', 'provider', 'token', 'platform'])(
    '%s missing, null, a number, an object or empty',
    async (field) => {
      const user = await w.api.user();
      for (const value of [undefined, null, 42, { a: 1 }, ['x'], '']) {
        const body = good();
        if (value === undefined) delete body[field];
        else body[field] = value;
        await expectRefused(user, body, field);
      }
      expect(await devices(user)).toEqual([]);
    },
  );

  it('an unknown provider and a platform outside the list', async () => {
    const user = await w.api.user();
    await expectRefused(user, { ...good(), provider: 'honor' }, 'provider');
    await expectRefused(user, { ...good(), provider: 'FCM' }, 'provider');
    await expectRefused(user, { ...good(), platform: 'windows' }, 'platform');
    await expectRefused(user, { ...good(), platform: 'Android' }, 'platform');
  });

  it('an APNs token that is not hexadecimal, for alerts and VoIP', async () => {
    const user = await w.api.user();
    for (const provider of ['apns', 'apns_voip']) {
      const base = { device_id: deviceId(), provider, platform: 'ios' };
      await expectRefused(user, { ...base, token: 'z'.repeat(64) }, 'token');
      await expectRefused(user, { ...base, token: `${apnsToken().slice(0, 60)} xyz` }, 'token');
      await expectRefused(user, { ...base, token: FakeFcm.deviceToken() }, 'token');
    }
  });

  it('optional fields of the wrong type are named; null on them means "not sent"', async () => {
    const user = await w.api.user();
    for (const field of ['package_name', 'app_version', 'locale']) {
      await expectRefused(user, { ...good(), [field]: 7 }, field);
      await expectRefused(user, { ...good(), [field]: { x: 'y' } }, field);
    }
    const reply = await registerRaw(w.t, user, { ...good(), package_name: null, app_version: null, locale: null });
    expect({ code: reply.code, msg: reply.msg }).toEqual({ code: 0, msg: 'ok' });
  });

  it('unknown fields are ignored, not refused (docs/api.md), on each push write', async () => {
    const user = await w.api.user();
    const id = deviceId();
    const extra = { manufacturer: 'Google', extra: { nested: true } };
    const register = await registerRaw(w.t, user, { ...good(), device_id: id, ...extra });
    const settings = await settingsPost(w.t, user, { preview: null, quiet_hours: null, ...extra });
    const unregister = await unregisterRaw(w.t, user, { device_id: id, ...extra });
    expect({
      register: [register.code, register.msg],
      settings: [settings.code, settings.msg],
      unregister: [unregister.code, unregister.msg],
    }).toEqual({ register: [0, 'ok'], settings: [0, 'ok'], unregister: [0, 'ok'] });
  });

  it('huge values are refused naming the field, never a 500', async () => {
    const user = await w.api.user();
    const huge = 'a'.repeat(20_000);
    for (const field of ['device_id', 'token', 'package_name', 'app_version', 'locale']) {
      const reply = await registerRaw(w.t, user, { ...good(), [field]: huge });
      expect({ field, status: reply.status, code: reply.code, named: reply.msg?.includes(field) }).toEqual({
        field,
        status: 200,
        code: 1004,
        named: true,
      });
    }
    expect(await devices(user)).toEqual([]);
  });

  it('a lone surrogate is refused naming device_id; an emoji device_id round-trips or is refused, never a 500', async () => {
    const user = await w.api.user();
    await expectRefused(user, { ...good(), device_id: 'dev-\ud800x' }, 'device_id');
    const id = `dev-😀-中文-${deviceId()}`;
    const reply = await registerRaw(w.t, user, { ...good(), device_id: id });
    if (reply.code === 0) expect((await devices(user)).map((d) => d.device_id)).toEqual([id]);
    else expect({ code: reply.code, named: reply.msg?.includes('device_id') }).toEqual({ code: 1004, named: true });
  });

  it('the OpenAPI document states the device_id rule the service applies', async () => {
    // The service refuses device IDs outside letters, digits, ".", "_", ":" and "-": an adopter
    // can only learn that from the document.
    const user = await w.api.user();
    const refused = await registerRaw(w.t, user, { ...good(), device_id: 'dev 1' });
    const doc = (await w.t.http.get('/openapi.json')).body as {
      components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> };
    };
    const schema = doc.components.schemas.PushRegisterDto.properties.device_id;
    expect({ refused: refused.code, documented: 'pattern' in schema || 'maxLength' in schema }).toEqual({
      refused: 1004,
      documented: true,
    });
  });

  it('with an IM token revoked a moment ago: 1102, nothing stored', async () => {
    const user = await w.api.user();
    const revoked = await w.t.http
      .post('/app/sdk/users/revoke-tokens')
      .set(...hostAuth())
      .send({ user_id: user.userId });
    expect(revoked.body.code).toBe(0);
    const reply = await registerRaw(w.t, user, good());
    expect(reply.code).toBe(1102);
    const fresh = await issueUser(w.t, { user_id: user.userId });
    expect(await devices(fresh)).toEqual([]);
  });

  it('without an IM token: 1101', async () => {
    const response = await w.t.http.post('/app/sdk/push/register').send(good());
    expect(response.body.code).toBe(1101);
  });
});

describe('providers this service has no credentials for', () => {
  let only: PushWorld;
  beforeAll(async () => {
    only = await bootWorld({ providers: ['fcm'] });
  });
  afterAll(async () => {
    await only.close();
  });

  it.each([
    ['apns', 'ios'],
    ['apns_voip', 'ios'],
    ['huawei', 'android'],
    ['xiaomi', 'android'],
  ])('%s is refused naming provider', async (provider, platform) => {
    const user = await only.api.user();
    const body = { device_id: deviceId(), provider, token: tokenFor(provider), platform };
    const reply = await registerRaw(only.t, user, body);
    expect({ code: reply.code, named: reply.msg?.includes('provider') }).toEqual({ code: 1004, named: true });
  });
});

describe('one registration per device and provider; tokens move', () => {
  it('a new token for the same device and provider replaces the old one', async () => {
    const user = await w.api.user();
    const id = deviceId();
    await registerOk(w.t, user, { device_id: id, provider: 'fcm', token: FakeFcm.deviceToken(), platform: 'android' });
    await registerOk(w.t, user, { device_id: id, provider: 'fcm', token: FakeFcm.deviceToken(), platform: 'android' });
    expect(await devices(user)).toHaveLength(1);
  });

  it('an iPhone keeps its alert and VoIP tokens side by side', async () => {
    const user = await w.api.user();
    const id = deviceId();
    await registerOk(w.t, user, { device_id: id, provider: 'apns', token: apnsToken(), platform: 'ios' });
    await registerOk(w.t, user, { device_id: id, provider: 'apns_voip', token: apnsToken(), platform: 'ios' });
    expect((await devices(user)).map((d) => d.provider).sort()).toEqual(['apns', 'apns_voip']);
  });

  it('re-registering the same token renews registered_at', async () => {
    const user = await w.api.user();
    const body = { device_id: deviceId(), provider: 'fcm', token: FakeFcm.deviceToken(), platform: 'android' };
    const first = (await registerRaw(w.t, user, body)).data.registered_at as number;
    w.t.clock.advance(5_000);
    const second = (await registerRaw(w.t, user, body)).data.registered_at as number;
    expect(second).toBeGreaterThan(first);
    expect((await devices(user)) as unknown[]).toEqual([expect.objectContaining({ registered_at: second })]);
  });

  it('a token registered by another user moves to the last one', async () => {
    const [alice, bob] = await w.api.users(2);
    const token = FakeFcm.deviceToken();
    await registerOk(w.t, alice, { device_id: deviceId(), provider: 'fcm', token, platform: 'android' });
    await registerOk(w.t, bob, { device_id: deviceId(), provider: 'fcm', token, platform: 'android' });
    expect(await devices(alice)).toEqual([]);
    expect(await devices(bob)).toHaveLength(1);
  });

  it('the same token registered by two users at once ends with exactly one owner', async () => {
    // Half the rounds on one shared device ID (users signing in and out), half on two.
    for (let round = 0; round < 8; round += 1) {
      const users = await w.api.users(3);
      const token = FakeFcm.deviceToken();
      const shared = deviceId();
      const replies = await Promise.all(
        users.map((u) =>
          registerRaw(w.t, u, {
            device_id: round % 2 ? shared : deviceId(),
            provider: 'fcm',
            token,
            platform: 'android',
          }),
        ),
      );
      expect(replies.map((r) => r.code)).toEqual([0, 0, 0]);
      let owners = 0;
      for (const u of users) owners += (await devices(u)).length;
      expect({ round, owners }).toEqual({ round, owners: 1 });
    }
  });

  it('two registrations of one device at once end with one row', async () => {
    for (let round = 0; round < 5; round += 1) {
      const user = await w.api.user();
      const id = deviceId();
      const replies = await Promise.all(
        [0, 1, 2].map(() =>
          registerRaw(w.t, user, { device_id: id, provider: 'fcm', token: FakeFcm.deviceToken(), platform: 'android' }),
        ),
      );
      expect(replies.map((r) => r.code)).toEqual([0, 0, 0]);
      expect({ round, rows: (await devices(user)).length }).toEqual({ round, rows: 1 });
    }
  });
});

describe('unregister', () => {
  it('every provider of the device, then removed: 0', async () => {
    const user = await w.api.user();
    const id = deviceId();
    const other = deviceId();
    await registerOk(w.t, user, { device_id: id, provider: 'apns', token: apnsToken(), platform: 'ios' });
    await registerOk(w.t, user, { device_id: id, provider: 'apns_voip', token: apnsToken(), platform: 'ios' });
    await registerOk(w.t, user, {
      device_id: other,
      provider: 'fcm',
      token: FakeFcm.deviceToken(),
      platform: 'android',
    });
    const first = await unregisterRaw(w.t, user, { device_id: id });
    expect({ code: first.code, data: first.data }).toEqual({ code: 0, data: { removed: 2 } });
    const again = await unregisterRaw(w.t, user, { device_id: id });
    expect({ code: again.code, data: again.data }).toEqual({ code: 0, data: { removed: 0 } });
    expect((await devices(user)).map((d) => d.device_id)).toEqual([other]);
  });

  it('one provider only', async () => {
    const user = await w.api.user();
    const id = deviceId();
    await registerOk(w.t, user, { device_id: id, provider: 'apns', token: apnsToken(), platform: 'ios' });
    await registerOk(w.t, user, { device_id: id, provider: 'apns_voip', token: apnsToken(), platform: 'ios' });
    const reply = await unregisterRaw(w.t, user, { device_id: id, provider: 'apns_voip' });
    expect(reply.data).toEqual({ removed: 1 });
    expect((await devices(user)).map((d) => d.provider)).toEqual(['apns']);
  });

  it("does not touch another user's device of the same device_id", async () => {
    const [alice, bob] = await w.api.users(2);
    const id = deviceId();
    await registerOk(w.t, alice, { device_id: id, provider: 'fcm', token: FakeFcm.deviceToken(), platform: 'android' });
    expect((await unregisterRaw(w.t, bob, { device_id: id })).data).toEqual({ removed: 0 });
    expect(await devices(alice)).toHaveLength(1);
  });

  it('names a missing device_id and a bad provider', async () => {
    const user = await w.api.user();
    const missing = await unregisterRaw(w.t, user, {});
    expect({ code: missing.code, named: missing.msg?.includes('device_id') }).toEqual({ code: 1004, named: true });
    const bad = await unregisterRaw(w.t, user, { device_id: 'x', provider: 'honor' });
    expect({ code: bad.code, named: bad.msg?.includes('provider') }).toEqual({ code: 1004, named: true });
  });
});
