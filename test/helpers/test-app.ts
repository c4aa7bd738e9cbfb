import 'reflect-metadata';
import { NestExpressApplication } from '@nestjs/platform-express';
import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { CallRoomEventsService } from '../../src/calls/call-room-events.service';
import type TestAgent from 'supertest/lib/agent';
import { createApp } from '../../src/app.factory';
import { Clock } from '../../src/common/clock';
import { createRootLogger } from '../../src/common/logging/root-logger';
import { AppConfig, loadConfig } from '../../src/config/app-config';

/** A clock tests can move; it follows real time until set. */
export class TestClock extends Clock {
  private offset = 0;
  private fixed: number | null = null;

  now(): number {
    return this.fixed ?? Date.now() + this.offset;
  }

  /** Holds time still at `ms`. */
  set(ms: number): void {
    this.fixed = ms;
  }

  advance(ms: number): void {
    if (this.fixed !== null) this.fixed += ms;
    else this.offset += ms;
  }

  /** Follows real time again, from where it was held (time never goes back). */
  release(): void {
    if (this.fixed === null) return;
    this.offset = this.fixed - Date.now();
    this.fixed = null;
  }
}

export interface TestApp {
  app: NestExpressApplication;
  http: TestAgent;
  config: AppConfig;
  clock: TestClock;
  driver: 'sqlite' | 'mysql';
  close(): Promise<void>;
}

export const TEST_SECRETS = {
  SDK_SECRET: 'test-sdk-secret-0123456789abcdef-0123456789',
  JWT_SECRET: 'test-jwt-secret-0123456789abcdef-0123456789',
  RTC_SDK_APP_ID: '1400123456',
  RTC_CALLBACK_SECRET: 'test-callback-secret-0123456789',
  // Shaped like the provider console's SDKSecretKey (64 hex characters).
  RTC_SECRET_KEY: '7e57c0de5ec4e7b1a2c3d4e5f60718297e57c0de5ec4e7b1a2c3d4e5f6071829',
};

/** Which database this run uses: E2E_DATABASE_URL (set by test/run-tests.js), SQLite by default. */
function databaseUrl(): { url: string; sqliteFile: string | null } {
  const url = process.env.E2E_DATABASE_URL;
  if (url && !url.startsWith('sqlite')) return { url, sqliteFile: null };
  const file = join(tmpdir(), `im-e2e-${randomBytes(6).toString('hex')}.sqlite`);
  return { url: `sqlite:${file}`, sqliteFile: file };
}

/** Boots the real application (same factory as production) on a real database. */
export async function startTestApp(
  env: Record<string, string> = {},
  options: { logLines?: string[]; callTimers?: boolean } = {},
): Promise<TestApp> {
  const { url, sqliteFile } = databaseUrl();
  const mediaDir = join(tmpdir(), `im-e2e-media-${randomBytes(6).toString('hex')}`);
  const config = loadConfig({
    NODE_ENV: 'test',
    DATABASE_URL: url,
    MIGRATIONS_RUN: sqliteFile ? 'true' : 'false',
    PUBLIC_BASE_URL: 'http://im.test',
    // Generous limits so functional tests never meet 1005; rate-limit tests pass their own.
    RATE_LIMITS:
      'send=100000/1s,friend_request=100000/1s,report=100000/1s,client_error=100000/1s,media_upload=100000/1s,server_api=100000/1s',
    REALTIME_CONNECTS_PER_MINUTE: '100000',
    REALTIME_MAX_SOCKETS_PER_USER: '10000',
    MEDIA_DIR: mediaDir,
    ...TEST_SECRETS,
    ...env,
  });
  const clock = new TestClock();
  const lines = options.logLines;
  const root = lines
    ? createRootLogger(config.operations.log, { write: (line: string) => void lines.push(line) })
    : undefined;
  const app = await createApp(config, { clock }, root);
  await app.init();
  // On MySQL every spec file shares one database, and a call timer pass ends every due call in
  // it by its own app's test clock: a file that moves its clock a day ahead would end the calls
  // of the others. Call specs run timer passes themselves (test/calls/call-helpers.ts).
  if (!options.callTimers) await app.get(CallRoomEventsService).onModuleDestroy();
  return {
    app,
    http: request(app.getHttpServer()),
    config,
    clock,
    driver: sqliteFile ? 'sqlite' : 'mysql',
    async close() {
      await app.close();
      if (sqliteFile) for (const suffix of ['', '-wal', '-shm']) rmSync(`${sqliteFile}${suffix}`, { force: true });
      rmSync(mediaDir, { recursive: true, force: true });
    },
  };
}

/** A fresh external user ID, so tests never share users. */
export function randomUserId(prefix = 'u'): string {
  return `${prefix}_${randomBytes(8).toString('hex')}`;
}

export function randomGroupId(): string {
  return `g-${randomBytes(8).toString('hex')}`;
}

export function uuidV4(): string {
  return randomUUID();
}

export const hostAuth = (): [string, string] => ['Authorization', `Bearer ${TEST_SECRETS.SDK_SECRET}`];

export interface IssuedUser {
  userId: string;
  id: string;
  token: string;
}

/** Issues a token through the real host endpoint. */
export async function issueUser(t: TestApp, fields: Record<string, unknown> = {}): Promise<IssuedUser> {
  const userId = (fields.user_id as string | undefined) ?? randomUserId();
  const response = await t.http
    .post('/app/sdk/token')
    .set(...hostAuth())
    .send({ user_id: userId, nickname: `Nick ${userId.slice(-4)}`, ...fields });
  if (response.body.code !== 0) throw new Error(`token issue failed: ${JSON.stringify(response.body)}`);
  return { userId, id: response.body.data.user.id, token: response.body.data.token };
}

export const bearer = (token: string): [string, string] => ['Authorization', `Bearer ${token}`];

/** The `data` of a successful envelope (HTTP 200, code 0), failing the test with the code and msg otherwise. */
export function okData<T>(response: { status: number; body?: { code?: number; msg?: string; data?: unknown } }): T {
  expect({ status: response.status, code: response.body?.code, msg: response.body?.msg }).toEqual({
    status: 200,
    code: 0,
    msg: 'ok',
  });
  return response.body?.data as T;
}

/** The one-to-one conversation ID with `peer`, as the other member sees it. */
export const friendConversationId = (peer: { userId: string }): string =>
  `friend_${Buffer.from(peer.userId).toString('base64url')}`;
