// Runtime settings (issue 14): changed in the admin console, applied without a restart on the
// instance that wrote them at once and on every other instance within SETTINGS_REFRESH_MS.
// They apply to every user of the database, so this file runs on a database of its own.
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { DataSource } from 'typeorm';
import { RESETTABLE_SETTINGS } from '../../src/settings/runtime-settings';
import { RuntimeSettingsService } from '../../src/settings/runtime-settings.service';
import { isolatedDatabase, IsolatedDatabase } from '../helpers/isolated-database';
import { TEST_SECRETS, TestApp, hostAuth, issueUser, startTestApp } from '../helpers/test-app';
import { connect, listen, refusal, waitForDisconnect } from '../helpers/realtime';
import { ApiClient, friendCid } from '../helpers/api-client';
import { expectOk } from '../helpers/assertions';
import { AdminSession, adminSession } from '../helpers/admin-client';

const REFRESH_MS = 300;
const CALLBACK_PATH = '/app/sdk/rtc/room-callback';

type Settings = {
  sdk_enabled: boolean;
  capabilities: Record<string, boolean>;
  blocked_keywords: string[];
  recall_window_seconds: number;
  rate_limits: Record<string, { limit: number; window_ms: number }>;
  push_rules: unknown[];
  rtc: {
    sdk_app_id: string;
    callback_key: { fingerprint: string; source: string };
    next_callback_key: { fingerprint: string } | null;
  };
  overridden: string[];
  cache_ttl_ms: number;
  updated_at: number | null;
};

describe('runtime settings (admin console)', () => {
  let database: IsolatedDatabase;
  let a: TestApp;
  let b: TestApp;
  let apiA: ApiClient;
  let apiB: ApiClient;
  let owner: AdminSession;
  let moderator: AdminSession;

  beforeAll(async () => {
    database = await isolatedDatabase();
    // Instance A migrates the database; B joins it as a second instance would.
    a = await startTestApp({ ...database.env, SETTINGS_REFRESH_MS: String(REFRESH_MS) });
    b = await startTestApp({ ...database.env, MIGRATIONS_RUN: 'false', SETTINGS_REFRESH_MS: String(REFRESH_MS) });
    apiA = new ApiClient(a);
    apiB = new ApiClient(b);
    owner = await adminSession(a, 'owner');
    moderator = await adminSession(a, 'moderator');
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await database?.drop();
  });
  // Every test starts from the environment's values.
  afterEach(async () => {
    expectOk(await owner.post('/app/admin/settings/reset', { keys: RESETTABLE_SETTINGS }));
    const staged = expectOk<Settings>(await owner.get('/app/admin/settings')).rtc.next_callback_key;
    if (staged) expectOk(await owner.post('/app/admin/settings/rtc-callback-key/cancel'));
    // Instance B would follow within REFRESH_MS; the next test must not start inside that window.
    await b.app.get(RuntimeSettingsService).reload();
  });

  const update = async (body: object): Promise<Settings> =>
    expectOk<Settings>(await owner.post('/app/admin/settings/update', body));

  /** Polls `probe` on instance B until it holds; returns how long that took. */
  async function onSecondInstance(probe: () => Promise<boolean>): Promise<number> {
    const started = Date.now();
    // Generous against a loaded CI machine; what is asserted is that it happens, not how fast.
    while (Date.now() - started < REFRESH_MS + 5000) {
      if (await probe()) return Date.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('the change never reached the second instance');
  }

  const friendRequest = (t: TestApp, from: { token: string }, to: { userId: string }) =>
    t.http
      .post('/app/sdk/friends/requests')
      .set('Authorization', `Bearer ${from.token}`)
      .send({ user_id: to.userId, request_id: `fr-${randomBytes(6).toString('hex')}` });

  it('shows the environment values, with nothing overridden, to every role', async () => {
    const settings = expectOk<Settings>(await moderator.get('/app/admin/settings'));
    expect(settings).toMatchObject({
      sdk_enabled: true,
      capabilities: { friends: true, groups: true, calls: true, search: true, media: true },
      overridden: [],
      cache_ttl_ms: REFRESH_MS,
      updated_at: null,
      rtc: {
        sdk_app_id: TEST_SECRETS.RTC_SDK_APP_ID,
        callback_key: { source: 'environment' },
        next_callback_key: null,
      },
    });
    expect(settings.rtc.callback_key.fingerprint).toMatch(/^[0-9a-f]{12}$/);
    expect(JSON.stringify(settings)).not.toContain(TEST_SECRETS.RTC_CALLBACK_SECRET);
  });

  it('closes a capability: 1202 at once on the writing instance, within the refresh interval on the other, and in sync', async () => {
    const [x, y] = [await issueUser(a), await issueUser(a)];
    const settings = await update({ capabilities: { friends: false } });
    expect(settings.capabilities).toEqual({ friends: false, groups: true, calls: true, search: true, media: true });
    expect(settings.overridden).toEqual(['capabilities']);
    const onA = await friendRequest(a, x, y);
    expect(onA.body).toMatchObject({ code: 1202, data: null });
    const took = await onSecondInstance(async () => (await friendRequest(b, x, y)).body.code === 1202);
    // eslint-disable-next-line no-console
    console.log(`[settings] capability closed on instance B ${took} ms after the change (refresh ${REFRESH_MS} ms)`);
    expect((await apiB.sync(x)).capabilities).toMatchObject({ friends: false, groups: true });

    await update({ capabilities: { friends: true } });
    await onSecondInstance(async () => (await friendRequest(b, x, y)).body.code === 0);
  });

  it('switches the SDK off: every IM token answers 1002 on both instances; the environment value returns on reset', async () => {
    const user = await issueUser(a);
    await update({ sdk_enabled: false });
    expect((await a.http.post('/app/sdk/sync').set('Authorization', `Bearer ${user.token}`).send({})).body.code).toBe(
      1002,
    );
    await onSecondInstance(
      async () =>
        (await b.http.post('/app/sdk/sync').set('Authorization', `Bearer ${user.token}`).send({})).body.code === 1002,
    );
    expectOk(await owner.post('/app/admin/settings/reset', { keys: ['sdk_enabled'] }));
    expectOk(await a.http.post('/app/sdk/sync').set('Authorization', `Bearer ${user.token}`).send({}));
  });

  it('switching the SDK off ends live sockets on every instance with session.revoked 1002 and refuses new handshakes', async () => {
    const user = await issueUser(a);
    const [urlA, urlB] = [await listen(a), await listen(b)];
    const clients = [
      await connect(urlA, { auth: { token: user.token } }),
      await connect(urlB, { auth: { token: user.token } }),
    ];
    try {
      await update({ sdk_enabled: false });
      for (const client of clients) {
        const revoked = await client.waitFor(() => client.of('session.revoked')[0], REFRESH_MS + 5000, 'revocation');
        expect(revoked.data).toEqual({ code: 1002 });
        await waitForDisconnect(client);
      }
      await onSecondInstance(async () => (await refusal(urlB, { auth: { token: user.token } })).code === 1002);
      expect(await refusal(urlA, { auth: { token: user.token } })).toMatchObject({ code: 1002 });
    } finally {
      for (const client of clients) client.close();
    }
  });

  it('refuses text with a blocked keyword (1203), matched case-insensitively; the list is replaced whole', async () => {
    const [x, y] = [await issueUser(a), await issueUser(a)];
    await apiA.befriend(x, y);
    const word = `blk${randomBytes(3).toString('hex')}`;
    const settings = await update({ blocked_keywords: [word.toUpperCase(), word, 'Other'] });
    expect(settings.blocked_keywords).toEqual([word, 'other']);
    const sent = await apiA.raw.sendText(x, friendCid(y), `hello ${word.toUpperCase()}!`);
    expect(sent.body).toMatchObject({ code: 1203, data: null });
    await update({ blocked_keywords: [] });
    await apiA.send(x, friendCid(y), `hello ${word}`);
  });

  it('applies the recall window and rate limits from the console', async () => {
    const [x, y] = [await issueUser(a), await issueUser(a)];
    await apiA.befriend(x, y);
    const first = await apiA.send(x, friendCid(y), 'recall me');
    await update({ recall_window_seconds: 0 });
    a.clock.advance(1000);
    expect((await apiA.raw.recall(x, friendCid(y), first.message.mid)).body.code).toBe(1208);

    const settings = await update({ rate_limits: { send: { limit: 1, window_ms: 60_000 } } });
    expect(settings.rate_limits.send).toEqual({ limit: 1, window_ms: 60_000 });
    // The other limits keep their values: a map changes only in the entries sent.
    expect(settings.rate_limits.report.limit).toBe(100000);
    // A sender with no earlier sends: x's first message may share the new rule's window.
    const [p, q] = [await issueUser(a), await issueUser(a)];
    await apiA.befriend(p, q);
    // The window is a fixed minute of the clock: hold it inside one, so that the two sends cannot
    // straddle a minute's edge on a slow machine.
    a.clock.set(Math.ceil(a.clock.now() / 60_000) * 60_000 + 1000);
    try {
      await apiA.send(p, friendCid(q), 'one');
      const second = await apiA.raw.sendText(p, friendCid(q), 'two');
      expect(second.body.code).toBe(1005);
    } finally {
      a.clock.release();
    }
  });

  it('answers the token request with the console push rules', async () => {
    await update({
      push_rules: [
        { platform: 'android', manufacturer: '*', package_name: 'com.example.im', config: { channel: 'general' } },
        { platform: 'android', manufacturer: 'Xiaomi', package_name: '*', config: { mi_app_id: '2882' } },
      ],
    });
    const reply = expectOk<{ push: Record<string, unknown> }>(
      await a.http
        .post('/app/sdk/token')
        .set(...hostAuth())
        .send({
          user_id: `u_${randomBytes(6).toString('hex')}`,
          nickname: 'Push',
          platform: 'android',
          manufacturer: 'xiaomi',
          package_name: 'com.example.im',
        }),
    );
    expect(reply.push).toEqual({ channel: 'general', mi_app_id: '2882' });
  });

  describe('room-callback key rotation', () => {
    const event = () =>
      JSON.stringify({
        EventGroupId: 1,
        EventType: 102,
        CallbackTs: a.clock.now(),
        EventInfo: { RoomId: randomInt(1_000_000, 4_294_967_295), EventMsTs: a.clock.now() - 1000 },
      });
    const post = (t: TestApp, key: string, appId = TEST_SECRETS.RTC_SDK_APP_ID) => {
      const raw = event();
      return t.http
        .post(CALLBACK_PATH)
        .set('Content-Type', 'application/json')
        .set('SdkAppId', appId)
        .set('Sign', createHmac('sha256', key).update(raw).digest('base64'))
        .send(raw);
    };
    const accepted = async (t: TestApp, key: string, appId?: string) => (await post(t, key, appId)).status === 200;

    it('verifies with both keys while one is staged, with the new one alone once promoted, on both instances', async () => {
      const envKey = TEST_SECRETS.RTC_CALLBACK_SECRET;
      const next = `rot-${randomBytes(16).toString('hex')}`;
      expect(await accepted(a, envKey)).toBe(true);
      expect(await accepted(a, next)).toBe(false);

      const staged = expectOk<Settings>(await owner.post('/app/admin/settings/rtc-callback-key/stage', { key: next }));
      expect(staged.rtc.next_callback_key?.fingerprint).toMatch(/^[0-9a-f]{12}$/);
      expect(JSON.stringify(staged)).not.toContain(next);
      expect(await accepted(a, envKey)).toBe(true);
      expect(await accepted(a, next)).toBe(true);
      await onSecondInstance(() => accepted(b, next));

      const promoted = expectOk<Settings>(await owner.post('/app/admin/settings/rtc-callback-key/promote'));
      expect(promoted.rtc).toMatchObject({ callback_key: { source: 'console' }, next_callback_key: null });
      expect(promoted.rtc.callback_key.fingerprint).toBe(staged.rtc.next_callback_key?.fingerprint);
      expect(await accepted(a, next)).toBe(true);
      expect(await post(a, envKey)).toMatchObject({ status: 403, body: { code: 1 } });
      await onSecondInstance(async () => !(await accepted(b, envKey)));

      // Reset returns to RTC_CALLBACK_SECRET.
      expectOk(await owner.post('/app/admin/settings/reset', { keys: ['rtc_callback_key'] }));
      expect(await accepted(a, envKey)).toBe(true);
      expect(await accepted(a, next)).toBe(false);
    });

    it('cancels a rotation, and refuses promote or cancel with nothing staged', async () => {
      const next = `rot-${randomBytes(16).toString('hex')}`;
      expectOk(await owner.post('/app/admin/settings/rtc-callback-key/stage', { key: next }));
      expectOk(await owner.post('/app/admin/settings/rtc-callback-key/cancel'));
      expect(await accepted(a, next)).toBe(false);
      for (const action of ['promote', 'cancel']) {
        const response = await owner.post(`/app/admin/settings/rtc-callback-key/${action}`);
        expect(response.body).toMatchObject({ code: 1004, data: null, msg: expect.stringMatching(/^rtc: /) });
      }
    });

    it('refuses a weak key, the current key, or one of the service’s other secrets, naming the field', async () => {
      for (const key of [
        'short',
        'has a space in it 0123',
        'x'.repeat(257),
        'ключ-ключ-ключ-ключ',
        TEST_SECRETS.RTC_CALLBACK_SECRET,
        TEST_SECRETS.RTC_SECRET_KEY,
        TEST_SECRETS.SDK_SECRET,
        TEST_SECRETS.JWT_SECRET,
      ]) {
        const response = await owner.post('/app/admin/settings/rtc-callback-key/stage', { key });
        expect({ key, code: response.body.code, msg: response.body.msg }).toEqual({
          key,
          code: 1004,
          msg: expect.stringMatching(/^key/),
        });
        expect(response.body.msg).not.toContain(key);
      }
    });

    it('moves the application ID: callbacks must then carry the new one', async () => {
      await update({ rtc_sdk_app_id: '1400999999' });
      expect(await accepted(a, TEST_SECRETS.RTC_CALLBACK_SECRET, '1400999999')).toBe(true);
      expect(await accepted(a, TEST_SECRETS.RTC_CALLBACK_SECRET)).toBe(false);
    });
  });

  it('refuses bad input with 1004 naming the field, and changes nothing', async () => {
    const before = expectOk<Settings>(await owner.get('/app/admin/settings'));
    const cases: Array<[object, RegExp]> = [
      [{}, /^settings: /],
      [{ sdk_enabled: 'false' }, /^sdk_enabled: /],
      [{ sdk_enabled: 0 }, /^sdk_enabled: /],
      [{ capabilities: {} }, /^capabilities/],
      [{ capabilities: { friends: 'no' } }, /^capabilities\.friends: /],
      [{ capabilities: { nonsense: false } }, /^capabilities\.nonsense: unknown capability$/],
      [{ capabilities: [false] }, /^capabilities: /],
      [{ blocked_keywords: 'spam' }, /^blocked_keywords: /],
      [{ blocked_keywords: ['x'.repeat(65)] }, /^blocked_keywords/],
      [{ blocked_keywords: ['ok', ''] }, /^blocked_keywords/],
      [{ blocked_keywords: Array.from({ length: 1001 }, (_, i) => `w${i}`) }, /^blocked_keywords: /],
      [{ recall_window_seconds: -1 }, /^recall_window_seconds: /],
      [{ recall_window_seconds: '60' }, /^recall_window_seconds: /],
      [{ recall_window_seconds: 1.5 }, /^recall_window_seconds: /],
      [{ rate_limits: { send: { limit: 0, window_ms: 1000 } } }, /^rate_limits\.send\.limit: /],
      [{ rate_limits: { send: { limit: 5 } } }, /^rate_limits\.send\.window_ms: /],
      [{ rate_limits: { send: { limit: 5, window_ms: 10 } } }, /^rate_limits\.send\.window_ms: /],
      [{ push_rules: [{ platform: 'web', manufacturer: '*', package_name: '*', config: {} }] }, /^push_rules/],
      [{ push_rules: [{ platform: 'ios', manufacturer: '*', package_name: '*', config: [] }] }, /^push_rules/],
      [
        { push_rules: [{ platform: 'ios', manufacturer: '*', package_name: '*', config: { x: 'y'.repeat(9000) } }] },
        /^push_rules\[0\]\.config: /,
      ],
      [{ rtc_sdk_app_id: '0123' }, /^rtc_sdk_app_id: /],
      [{ rtc_sdk_app_id: 1400000000 }, /^rtc_sdk_app_id: /],
    ];
    for (const [body, msg] of cases) {
      const response = await owner.post('/app/admin/settings/update', body);
      expect({ body, status: response.status, code: response.body.code, data: response.body.data }).toEqual({
        body,
        status: 200,
        code: 1004,
        data: null,
      });
      expect({ body, msg: response.body.msg }).toEqual({ body, msg: expect.stringMatching(msg) });
    }
    const reset = await owner.post('/app/admin/settings/reset', { keys: ['capabilities', 'everything'] });
    expect(reset.body).toMatchObject({ code: 1004, msg: expect.stringMatching(/^keys/) });
    expect(expectOk<Settings>(await owner.get('/app/admin/settings'))).toEqual(before);
  });

  it('refuses an unknown key at any level beside valid ones, naming its path, and changes nothing', async () => {
    const before = expectOk<Settings>(await owner.get('/app/admin/settings'));
    const rule = { platform: 'ios', manufacturer: '*', package_name: 'com.example', config: { a: 1 } };
    const cases: Array<[object, string]> = [
      [{ recall_window_seconds: 120, recal_window_seconds: 5 }, 'recal_window_seconds: unknown field'],
      [{ capabilities: { friends: false, frends: false } }, 'capabilities.frends: unknown capability'],
      [
        { rate_limits: { send: { limit: 5, window_ms: 1000 }, sendd: { limit: 1, window_ms: 1000 } } },
        'rate_limits.sendd: unknown rate limit',
      ],
      [
        { rate_limits: { send: { limit: 5, window_ms: 1000, windw_ms: 1 } } },
        'rate_limits.send.windw_ms: unknown field',
      ],
      [{ push_rules: [rule, { ...rule, platfrom: 'android' }] }, 'push_rules.1.platfrom: unknown field'],
      [{ sdk_enabled: false, sdk_enable: true }, 'sdk_enable: unknown field'],
    ];
    for (const [body, msg] of cases) {
      const response = await owner.post('/app/admin/settings/update', body);
      expect({ body, status: response.status, reply: response.body }).toEqual({
        body,
        status: 200,
        reply: { code: 1004, msg, data: null },
      });
    }
    // The rule's config is the host's own object, merged into token replies: its keys are free.
    expect(
      (await update({ push_rules: [{ ...rule, config: { anything: { goes: true } } }] })).push_rules[0],
    ).toMatchObject({ config: { anything: { goes: true } } });
    expectOk(await owner.post('/app/admin/settings/reset', { keys: ['push_rules'] }));
    const refused = [
      await owner.post('/app/admin/settings/reset', { keys: ['sdk_enabled'], key: 'x' }),
      await owner.post('/app/admin/settings/rtc-callback-key/stage', {
        key: `k-${randomBytes(12).toString('hex')}`,
        kye: 1,
      }),
    ];
    expect(refused.map((r) => r.body)).toEqual([
      { code: 1004, msg: 'key: unknown field', data: null },
      { code: 1004, msg: 'kye: unknown field', data: null },
    ]);
    expect(expectOk<Settings>(await owner.get('/app/admin/settings'))).toEqual(before);
  });

  it('stores nothing and audits nothing when a save holds the value already in force', async () => {
    const admin = await adminSession(a, 'owner');
    const settingsAudit = async () =>
      expectOk<{ items: Array<{ before: unknown; after: unknown }> }>(
        await admin.get('/app/admin/audit', { target_type: 'settings', admin: admin.username }),
      ).items;
    const env = expectOk<Settings>(await admin.get('/app/admin/settings'));
    const same = {
      sdk_enabled: env.sdk_enabled,
      capabilities: env.capabilities,
      blocked_keywords: env.blocked_keywords,
      recall_window_seconds: env.recall_window_seconds,
      rate_limits: env.rate_limits,
      push_rules: env.push_rules,
      rtc_sdk_app_id: env.rtc.sdk_app_id,
    };
    for (const [key, value] of Object.entries(same)) {
      const reply = expectOk<Settings>(await admin.post('/app/admin/settings/update', { [key]: value }));
      expect({ key, reply }).toEqual({ key, reply: env });
    }
    expect(await settingsAudit()).toEqual([]);

    // Only the entries that change are stored and audited.
    const mixed = expectOk<Settings>(
      await admin.post('/app/admin/settings/update', { capabilities: { ...env.capabilities, calls: false } }),
    );
    expect(mixed.overridden).toEqual(['capabilities']);
    expect(await settingsAudit()).toEqual([
      expect.objectContaining({ before: { 'capabilities.calls': null }, after: { 'capabilities.calls': false } }),
    ]);
    // Against a stored value: the same value again is no change; the environment's value is one.
    const changed = env.recall_window_seconds + 60;
    await update({ recall_window_seconds: changed });
    const count = (await settingsAudit()).length;
    expectOk(await admin.post('/app/admin/settings/update', { recall_window_seconds: changed }));
    expect(await settingsAudit()).toHaveLength(count);
    const back = expectOk<Settings>(
      await admin.post('/app/admin/settings/update', { recall_window_seconds: env.recall_window_seconds }),
    );
    expect(back.overridden).toContain('recall_window_seconds');
    expect((await settingsAudit())[0]).toMatchObject({
      before: { recall_window_seconds: changed },
      after: { recall_window_seconds: env.recall_window_seconds },
    });
  });

  it('keeps both of two concurrent changes to different entries of one map', async () => {
    const other = await adminSession(a, 'owner');
    await Promise.all([
      owner.post('/app/admin/settings/update', { capabilities: { search: false } }),
      other.post('/app/admin/settings/update', { capabilities: { media: false } }),
      owner.post('/app/admin/settings/update', { rate_limits: { report: { limit: 7, window_ms: 1000 } } }),
      other.post('/app/admin/settings/update', { rate_limits: { media_upload: { limit: 9, window_ms: 2000 } } }),
    ]).then((replies) => replies.forEach((r) => expectOk(r)));
    const settings = expectOk<Settings>(await owner.get('/app/admin/settings'));
    expect(settings.capabilities).toMatchObject({ search: false, media: false, friends: true });
    expect(settings.rate_limits).toMatchObject({
      report: { limit: 7, window_ms: 1000 },
      media_upload: { limit: 9, window_ms: 2000 },
    });
  });

  it('writes every change to the audit log with before and after, callback keys as fingerprints only', async () => {
    const key = `aud-${randomBytes(16).toString('hex')}`;
    await update({ capabilities: { calls: false } });
    expectOk(await owner.post('/app/admin/settings/rtc-callback-key/stage', { key }));
    const audit = expectOk<{ items: Array<Record<string, unknown>> }>(
      await owner.get('/app/admin/audit', { target_type: 'settings', admin: owner.username }),
    );
    const actions = audit.items.map((i) => i.action);
    expect(actions).toEqual(expect.arrayContaining(['settings.updated', 'settings.callback_key_staged']));
    const updated = audit.items.find(
      (i) => i.action === 'settings.updated' && JSON.stringify(i.after).includes('calls'),
    );
    expect(updated).toMatchObject({
      target_type: 'settings',
      target_id: 'runtime',
      before: { 'capabilities.calls': null },
      after: { 'capabilities.calls': false },
    });
    expect(JSON.stringify(audit.items)).not.toContain(key);
  });

  it('ignores a stored row it does not understand: the environment value applies, nothing answers 500', async () => {
    const dataSource = a.app.get(DataSource);
    await dataSource.query(
      'INSERT INTO runtime_settings (name, value_json, updated_at, updated_by) VALUES (?, ?, ?, ?), (?, ?, ?, ?)',
      ['capabilities.friends', '"nope"', 1, 'sql', 'recall_window_seconds', '{not json', 1, 'sql'],
    );
    try {
      const settings = expectOk<Settings>(await owner.get('/app/admin/settings'));
      expect(settings.capabilities.friends).toBe(true);
      expect(settings.recall_window_seconds).toBe(a.config.messaging.recallWindowSeconds);
    } finally {
      await dataSource.query('DELETE FROM runtime_settings WHERE name IN (?, ?)', [
        'capabilities.friends',
        'recall_window_seconds',
      ]);
    }
  });
});
