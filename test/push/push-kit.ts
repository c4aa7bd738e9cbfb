// What the push end-to-end specs share: fake providers wired into an app's settings, a user's
// device registration, and waiting for the fakes to receive (or not) what the dispatcher sends.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { EventStream } from '../../src/outbox/event-stream.service';
import { eventually } from '../webhooks/receiver';
import { FakeApns } from './fakes/fake-apns';
import { FakeFcm } from './fakes/fake-fcm';
import { FakeHuawei } from './fakes/fake-huawei';
import { FakeXiaomi } from './fakes/fake-xiaomi';
import { IssuedUser, TestApp, bearer, okData } from '../helpers/test-app';

/** Short waits so that retries, polls and leases play out within a test. */
export const FAST_PUSH = {
  PUSH_POLL_MS: '50',
  PUSH_BACKOFF_BASE_MS: '50',
  PUSH_BACKOFF_MAX_MS: '200',
  PUSH_TIMEOUT_MS: '2000',
  PUSH_LEASE_MS: '5000',
};

/** A directory for CA and key files, removed by `cleanup`. */
export class PushFiles {
  readonly dir = mkdtempSync(join(tmpdir(), 'im-push-'));

  write(name: string, text: string): string {
    const path = join(this.dir, name);
    writeFileSync(path, text);
    return path;
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The settings that point an app's FCM adapter at a fake. */
export async function fcmEnv(fcm: FakeFcm, files: PushFiles): Promise<Record<string, string>> {
  const account = await fcm.serviceAccount(`project-${randomBytes(3).toString('hex')}`);
  return {
    FCM_SERVICE_ACCOUNT: account.json,
    FCM_URL: fcm.url,
    FCM_CA_FILE: files.write(`fcm-ca-${randomBytes(3).toString('hex')}.pem`, fcm.caPem),
  };
}

export interface Registration {
  device_id: string;
  provider: string;
  token: string;
  platform: string;
  locale?: string;
  package_name?: string;
}

export async function register(t: TestApp, user: IssuedUser, registration: Registration): Promise<void> {
  okData(
    await t.http
      .post('/app/sdk/push/register')
      .set(...bearer(user.token))
      .send(registration),
  );
}

export function androidDevice(token = FakeFcm.deviceToken()): Registration {
  return { device_id: `pixel-${randomBytes(4).toString('hex')}`, provider: 'fcm', token, platform: 'android' };
}

/**
 * Waits until the dispatcher has read every event sequenced so far and nothing it queued is
 * still waiting: after this, a notification that did not arrive will not arrive.
 */
export async function settled(t: TestApp): Promise<void> {
  await t.app.get(EventStream).flush();
  const db = t.app.get(DataSource);
  await eventually(async () => {
    const [head] = (await db.query('SELECT last_position FROM outbox_sequence WHERE id = 1')) as Array<{
      last_position: string | number;
    }>;
    const [state] = (await db.query('SELECT cursor_position FROM push_dispatch WHERE id = 1')) as Array<{
      cursor_position: string | number;
    }>;
    const [waiting] = (await db.query("SELECT COUNT(*) AS n FROM push_deliveries WHERE status = 'pending'")) as Array<{
      n: string | number;
    }>;
    return BigInt(state.cursor_position) >= BigInt(head.last_position) && Number(waiting.n) === 0;
  }, 'the push dispatcher to settle');
}

/** A fresh .p8-style key and the settings that point an app's APNs adapter at a fake started with it. */
export async function apnsFake(
  files: PushFiles,
  topic = 'com.example.chat',
): Promise<{ apns: FakeApns; env: Record<string, string> }> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keyId = randomBytes(5).toString('hex').toUpperCase();
  const teamId = randomBytes(5).toString('hex').toUpperCase();
  const apns = await FakeApns.start({ publicKey, keyId, teamId, topic });
  return {
    apns,
    env: {
      APNS_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      APNS_KEY_ID: keyId,
      APNS_TEAM_ID: teamId,
      APNS_TOPIC: topic,
      APNS_URL: apns.url,
      APNS_CA_FILE: files.write(`apns-ca-${randomBytes(3).toString('hex')}.pem`, apns.caPem),
    },
  };
}

/** An APNs device token (64 hex digits). */
export const apnsToken = (): string => randomBytes(32).toString('hex');

export function iosDevice(
  provider: 'apns' | 'apns_voip' = 'apns',
  deviceId = `iphone-${randomBytes(4).toString('hex')}`,
  token = apnsToken(),
): Registration {
  return { device_id: deviceId, provider, token, platform: 'ios', package_name: 'com.example.chat' };
}

/** A fake Huawei Push Kit (v1 and the HarmonyOS v3 API) and the settings that point an app at it. */
export async function huaweiFake(files: PushFiles): Promise<{ huawei: FakeHuawei; env: Record<string, string> }> {
  const appId = String(100_000 + Math.floor(Math.random() * 900_000));
  const projectId = `10${appId}`;
  const clientSecret = randomBytes(16).toString('hex');
  const huawei = await FakeHuawei.start({ appId, clientId: appId, clientSecret, projectId });
  return {
    huawei,
    env: {
      HUAWEI_APP_ID: appId,
      HUAWEI_CLIENT_SECRET: clientSecret,
      HUAWEI_OAUTH_URL: `${huawei.url}/oauth2/v3/token`,
      HUAWEI_PUSH_URL: huawei.url,
      HUAWEI_CA_FILE: files.write(`huawei-ca-${randomBytes(3).toString('hex')}.pem`, huawei.caPem),
      HUAWEI_PROJECT_ID: projectId,
      HUAWEI_SERVICE_ACCOUNT_FILE: files.write(
        `huawei-sa-${randomBytes(3).toString('hex')}.json`,
        huawei.serviceAccountJson,
      ),
    },
  };
}

/** A fake Xiaomi Mi Push and the settings that point an app at it. */
export async function xiaomiFake(
  files: PushFiles,
  packageName = 'com.example.chat',
): Promise<{ xiaomi: FakeXiaomi; env: Record<string, string> }> {
  const appSecret = randomBytes(12).toString('base64');
  const xiaomi = await FakeXiaomi.start({ appSecret, packageName });
  return {
    xiaomi,
    env: {
      XIAOMI_APP_SECRET: appSecret,
      XIAOMI_PACKAGE_NAME: packageName,
      XIAOMI_URL: xiaomi.url,
      XIAOMI_CA_FILE: files.write(`xiaomi-ca-${randomBytes(3).toString('hex')}.pem`, xiaomi.caPem),
    },
  };
}

export { eventually };

/**
 * Polls until `read()` equals `expected` (jest's toEqual, matchers allowed), then asserts it, so a
 * miss reports the last value. For what a push worker does after it records a notification's
 * end (counting it, removing a dead registration): settled() sees the record, and these follow
 * it by a moment.
 */
export async function eventuallyEqual<T>(read: () => Promise<T>, expected: unknown, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    try {
      expect(value).toEqual(expected);
      return;
    } catch (miss) {
      if (Date.now() > until) throw miss;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
