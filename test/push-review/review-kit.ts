// What the push review specs share: one app on a database of its own with every provider
// pointed at a fake, raw calls to the push endpoints, and reads of the records and metrics
// the documentation (docs/push.md) describes.
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { MetricsService } from '../../src/metrics/metrics.service';
import { ApiClient } from '../helpers/api-client';
import { isolatedDatabase, IsolatedDatabase } from '../helpers/isolated-database';
import { IssuedUser, TestApp, bearer, startTestApp } from '../helpers/test-app';
import { FakeApns } from '../push/fakes/fake-apns';
import { FakeFcm } from '../push/fakes/fake-fcm';
import { FakeHuawei } from '../push/fakes/fake-huawei';
import { FakeXiaomi } from '../push/fakes/fake-xiaomi';
import { FAST_PUSH, PushFiles, apnsFake, fcmEnv, huaweiFake, settled, xiaomiFake } from '../push/push-kit';

export type ProviderName = 'apns' | 'fcm' | 'huawei' | 'xiaomi';

export interface PushWorld {
  t: TestApp;
  api: ApiClient;
  apns: FakeApns | null;
  fcm: FakeFcm | null;
  huawei: FakeHuawei | null;
  xiaomi: FakeXiaomi | null;
  close(): Promise<void>;
}

/** Boots an app on its own database with the named providers pointed at fakes (all four by default). */
export async function bootWorld(
  options: { providers?: ProviderName[]; env?: Record<string, string>; omit?: string[]; logLines?: string[] } = {},
): Promise<PushWorld> {
  const providers = options.providers ?? ['apns', 'fcm', 'huawei', 'xiaomi'];
  const files = new PushFiles();
  const database: IsolatedDatabase = await isolatedDatabase();
  let env: Record<string, string> = { ...FAST_PUSH, ...database.env };
  let apns: FakeApns | null = null;
  let fcm: FakeFcm | null = null;
  let huawei: FakeHuawei | null = null;
  let xiaomi: FakeXiaomi | null = null;
  if (providers.includes('apns')) {
    const made = await apnsFake(files);
    apns = made.apns;
    env = { ...env, ...made.env };
  }
  if (providers.includes('fcm')) {
    fcm = await FakeFcm.start();
    env = { ...env, ...(await fcmEnv(fcm, files)) };
  }
  if (providers.includes('huawei')) {
    const made = await huaweiFake(files);
    huawei = made.huawei;
    env = { ...env, ...made.env };
  }
  if (providers.includes('xiaomi')) {
    const made = await xiaomiFake(files);
    xiaomi = made.xiaomi;
    env = { ...env, ...made.env };
  }
  for (const name of options.omit ?? []) delete env[name];
  const t = await startTestApp({ ...env, ...(options.env ?? {}) }, { logLines: options.logLines });
  return {
    t,
    api: new ApiClient(t),
    apns,
    fcm,
    huawei,
    xiaomi,
    async close() {
      await t.close();
      for (const fake of [apns, fcm, huawei, xiaomi]) if (fake) await fake.close();
      files.cleanup();
      await database.drop();
    },
  };
}

export const hex = (bytes: number): string => randomBytes(bytes).toString('hex');
export const deviceId = (prefix = 'dev'): string => `${prefix}-${hex(5)}`;
/** A Huawei push token (an opaque string of the shape HMS hands out). */
export const huaweiToken = (): string => `IQAAAACy${randomBytes(60).toString('base64url')}`;
/** A Xiaomi regid. */
export const xiaomiRegId = (): string => `${randomBytes(30).toString('base64')}`;

export interface Envelope<T = Record<string, unknown>> {
  status: number;
  code: number;
  msg: string;
  data: T;
}

async function envelope<T>(request: PromiseLike<{ status: number; body: unknown }>): Promise<Envelope<T>> {
  const response = await request;
  const body = (response.body ?? {}) as { code: number; msg: string; data: T };
  return { status: response.status, code: body.code, msg: body.msg, data: body.data };
}

export function registerRaw(t: TestApp, user: { token: string }, body: unknown): Promise<Envelope> {
  return envelope(
    t.http
      .post('/app/sdk/push/register')
      .set(...bearer(user.token))
      .send(body as object),
  );
}

export function unregisterRaw(t: TestApp, user: { token: string }, body: unknown): Promise<Envelope> {
  return envelope(
    t.http
      .post('/app/sdk/push/unregister')
      .set(...bearer(user.token))
      .send(body as object),
  );
}

export function settingsGet(t: TestApp, user: { token: string }): Promise<Envelope> {
  return envelope(t.http.get('/app/sdk/push/settings').set(...bearer(user.token)));
}

export function settingsPost(t: TestApp, user: { token: string }, body: unknown): Promise<Envelope> {
  return envelope(
    t.http
      .post('/app/sdk/push/settings')
      .set(...bearer(user.token))
      .send(body as object),
  );
}

/** Registers and fails the test when the service refuses. */
export async function registerOk(t: TestApp, user: IssuedUser, body: Record<string, unknown>): Promise<void> {
  const reply = await registerRaw(t, user, body);
  expect({ body, code: reply.code, msg: reply.msg }).toEqual({ body, code: 0, msg: 'ok' });
}

/** Every stored delivery record (whatever the columns are named). */
export async function deliveryRows(t: TestApp): Promise<Array<Record<string, unknown>>> {
  return (await t.app.get(DataSource).query('SELECT * FROM push_deliveries')) as Array<Record<string, unknown>>;
}

/** Every table's rows that mention `needle` in any column: where a secret or a text must not be. */
export async function rowsMentioning(t: TestApp, tables: string[], needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const table of tables) {
    const rows = (await t.app.get(DataSource).query(`SELECT * FROM ${table}`)) as Array<Record<string, unknown>>;
    for (const row of rows) {
      const text = JSON.stringify(row, (_k, v: unknown) =>
        Buffer.isBuffer(v) ? v.toString('utf8') : typeof v === 'bigint' ? String(v) : v,
      );
      if (text.includes(needle)) found.push(`${table}: ${text.slice(0, 300)}`);
    }
  }
  return found;
}

/** A metric's samples as `{labels, value}`. */
export async function metricSamples(
  t: TestApp,
  name: string,
): Promise<Array<{ labels: Record<string, string | number>; value: number; metricName?: string }>> {
  const all = await t.app.get(MetricsService).registry.getMetricsAsJSON();
  const metric = all.find((m) => m.name === name);
  if (!metric) return [];
  return (metric as unknown as { values: Array<{ labels: Record<string, string | number>; value: number }> }).values;
}

/** The sum of a metric's samples whose labels include `labels`. */
export async function metricValue(t: TestApp, name: string, labels: Record<string, string> = {}): Promise<number> {
  const samples = await metricSamples(t, name);
  return samples
    .filter((s) => Object.entries(labels).every(([k, v]) => String(s.labels[k]) === v))
    .reduce((sum, s) => sum + s.value, 0);
}

export { settled };
