// Media on an S3-compatible store (MEDIA_STORAGE=s3, here s3rver): upload and download as with
// the local driver, two instances on one database and one bucket serving each other's media,
// a missing object answered 1207 and an unreachable store 503 / 1500.
import { DeleteObjectCommand, GetObjectCommand } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Response } from 'supertest';
import type { S3StorageConfig } from '../../src/config/media-config';
import { MediaRepository } from '../../src/media/media.repository';
import { createS3Client } from '../../src/media/storage/s3-storage';
import { FakeS3, startFakeS3 } from '../helpers/s3rver';
import { Seed } from '../helpers/factories';
import {
  IssuedUser,
  TestApp,
  bearer,
  friendConversationId,
  issueUser,
  okData,
  startTestApp,
  uuidV4,
} from '../helpers/test-app';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const HTML = Buffer.from('<!doctype html><html><body><script>alert(document.cookie)</script></body></html>\n');
const ABSENT = { code: 1207, msg: 'media_id: media absent or not accessible', data: null };
const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

type MediaReply = { media_id: string; kind: string; mime_type: string; size: number; file_name: string; url: string };

interface Download {
  status: number;
  headers: Record<string, string>;
  bytes: Buffer;
  body: unknown;
}

/** Reads any reply as bytes; JSON replies are parsed as well. */
function binaryParser(res: Response, callback: (error: Error | null, body: Buffer) => void): void {
  const stream = res as unknown as IncomingMessage;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => callback(null, Buffer.concat(chunks)));
}

async function upload(
  t: TestApp,
  user: IssuedUser,
  data: Buffer,
  options: { filename: string; kind?: string },
): Promise<MediaReply> {
  const req = t.http.post('/app/sdk/media/upload').set(...bearer(user.token));
  if (options.kind) void req.field('kind', options.kind);
  const response = await req.attach('file', data, {
    filename: options.filename,
    contentType: 'application/octet-stream',
  });
  return okData<{ media: MediaReply }>(response).media;
}

async function download(t: TestApp, user: IssuedUser, mediaId: string): Promise<Download> {
  const response: Response = await t.http
    .get(`/app/sdk/media/${mediaId}`)
    .set(...bearer(user.token))
    .buffer(true)
    .parse(binaryParser);
  const bytes = response.body as Buffer;
  const json = String(response.headers['content-type'] ?? '').startsWith('application/json');
  return {
    status: response.status,
    headers: response.headers as Record<string, string>,
    bytes,
    body: json ? JSON.parse(bytes.toString('utf8')) : null,
  };
}

/** The headers the local driver's download carries (see media.e2e-spec.ts), for comparison across instances. */
const servedHeaders = (reply: Download) => ({
  status: reply.status,
  type: reply.headers['content-type'],
  length: reply.headers['content-length'],
  disposition: reply.headers['content-disposition'],
  cache: reply.headers['cache-control'],
  nosniff: reply.headers['x-content-type-options'],
  csp: reply.headers['content-security-policy'],
});

function expectAbsent(reply: Download): void {
  expect({ status: reply.status, body: reply.body, cache: reply.headers['cache-control'] }).toEqual({
    status: 200,
    body: ABSENT,
    cache: 'no-store',
  });
}

function s3Settings(s3: FakeS3, prefix: string): S3StorageConfig {
  return {
    bucket: s3.bucket,
    region: 'us-east-1',
    endpoint: s3.endpoint,
    forcePathStyle: true,
    prefix,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  };
}

describe('Media on an S3-compatible store (MEDIA_STORAGE=s3)', () => {
  const prefix = `e2e-${randomBytes(4).toString('hex')}/`;
  // Two instances need one database. On MySQL both use E2E_DATABASE_URL; on SQLite both open
  // one file (WAL, busy_timeout): the steps below never write from both at the same moment.
  const sqliteFile = (process.env.E2E_DATABASE_URL ?? 'sqlite').startsWith('sqlite')
    ? join(tmpdir(), `im-e2e-s3-${randomBytes(6).toString('hex')}.sqlite`)
    : null;
  let s3: FakeS3;
  let one: TestApp;
  let two: TestApp;
  let alice: IssuedUser;
  const raw = () => createS3Client(s3Settings(s3, prefix));

  beforeAll(async () => {
    s3 = await startFakeS3();
    const env = { ...s3.env, MEDIA_S3_PREFIX: prefix, ...(sqliteFile ? { DATABASE_URL: `sqlite:${sqliteFile}` } : {}) };
    one = await startTestApp(env);
    two = await startTestApp(env);
    alice = await issueUser(one);
  });

  afterAll(async () => {
    await two?.close();
    await one?.close();
    await s3?.close();
    if (sqliteFile) for (const suffix of ['', '-wal', '-shm']) rmSync(`${sqliteFile}${suffix}`, { force: true });
  });

  it('stores an upload in the bucket under MEDIA_S3_PREFIX and the random key, nothing under MEDIA_DIR', async () => {
    const media = await upload(one, alice, PNG, { filename: 'cat.png', kind: 'image' });
    expect(media).toMatchObject({ kind: 'image', mime_type: 'image/png', size: PNG.length, file_name: 'cat.png' });
    const stored = await one.app.get(MediaRepository).findById(media.media_id);
    expect(stored!.storageKey).toMatch(/^[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{32}$/);
    expect(stored!.sha256).toBe(sha256(PNG));
    const client = raw();
    try {
      const object = await client.send(
        new GetObjectCommand({ Bucket: s3.bucket, Key: `${prefix}${stored!.storageKey}` }),
      );
      expect(Buffer.from(await object.Body!.transformToByteArray()).equals(PNG)).toBe(true);
    } finally {
      client.destroy();
    }
    expect(existsSync(one.config.messaging.media.dir)).toBe(false);
  });

  it('streams an image back inline and a file as an attachment, with the local driver’s headers', async () => {
    const image = await upload(one, alice, PNG, { filename: 'cat.png', kind: 'image' });
    const imageReply = await download(one, alice, image.media_id);
    expect(imageReply.bytes.equals(PNG)).toBe(true);
    expect(servedHeaders(imageReply)).toEqual({
      status: 200,
      type: 'image/png',
      length: String(PNG.length),
      disposition: `inline; filename="cat.png"; filename*=UTF-8''cat.png`,
      cache: 'private, max-age=86400',
      nosniff: 'nosniff',
      csp: 'sandbox',
    });

    const file = await upload(one, alice, HTML, { filename: '报告 (1).html' });
    const fileReply = await download(one, alice, file.media_id);
    expect(fileReply.bytes.equals(HTML)).toBe(true);
    expect(servedHeaders(fileReply)).toEqual({
      status: 200,
      type: 'text/plain; charset=utf-8',
      length: String(HTML.length),
      disposition: `attachment; filename="__ (1).html"; filename*=UTF-8''%E6%8A%A5%E5%91%8A%20%281%29.html`,
      cache: 'private, max-age=86400',
      nosniff: 'nosniff',
      csp: 'sandbox',
    });
  });

  it('serves what one instance stored from the other, both ways, with the same bytes and headers', async () => {
    const fromOne = await upload(one, alice, PNG, { filename: 'one.png', kind: 'image' });
    const fromTwo = await upload(two, alice, HTML, { filename: 'two.txt' });
    for (const media of [fromOne, fromTwo]) {
      const viaOne = await download(one, alice, media.media_id);
      const viaTwo = await download(two, alice, media.media_id);
      expect(viaOne.status).toBe(200);
      expect(viaTwo.bytes.equals(viaOne.bytes)).toBe(true);
      expect(servedHeaders(viaTwo)).toEqual(servedHeaders(viaOne));
    }
    expect(existsSync(two.config.messaging.media.dir)).toBe(false);
  });

  it('lets a conversation member fetch on the second instance what was uploaded and sent on the first', async () => {
    const bob = await issueUser(one);
    const media = await upload(one, alice, PNG, { filename: 'shared.png', kind: 'image' });
    expectAbsent(await download(two, bob, media.media_id));
    await new Seed(one).friends(alice.id, bob.id);
    const sent = await one.http
      .post('/app/sdk/messages/send')
      .set(...bearer(alice.token))
      .send({
        conversation_id: friendConversationId(bob),
        client_message_id: uuidV4(),
        type: 'image',
        content: { media_id: media.media_id },
      });
    okData(sent);
    const reply = await download(two, bob, media.media_id);
    expect(reply.status).toBe(200);
    expect(reply.bytes.equals(PNG)).toBe(true);
  });

  it('streams a 3 MiB file intact through either instance', async () => {
    const data = randomBytes(3 * 1024 * 1024);
    const media = await upload(two, alice, data, { filename: 'big.bin' });
    expect(media).toMatchObject({ mime_type: 'application/octet-stream', size: data.length });
    for (const t of [one, two]) {
      const reply = await download(t, alice, media.media_id);
      expect({ status: reply.status, length: reply.headers['content-length'], sha: sha256(reply.bytes) }).toEqual({
        status: 200,
        length: String(data.length),
        sha: sha256(data),
      });
    }
  });

  it('answers a recorded media whose object is gone from the bucket like an unknown ID (1207), not 500', async () => {
    const media = await upload(one, alice, PNG, { filename: 'gone.png', kind: 'image' });
    const stored = await one.app.get(MediaRepository).findById(media.media_id);
    const client = raw();
    try {
      await client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: `${prefix}${stored!.storageKey}` }));
    } finally {
      client.destroy();
    }
    expectAbsent(await download(one, alice, media.media_id));
    expectAbsent(await download(two, alice, media.media_id));
    expectAbsent(await download(one, alice, '9223372036854775807'));
  });
});

describe('Media on an S3-compatible store that stops answering', () => {
  let s3: FakeS3;
  let t: TestApp;
  let alice: IssuedUser;

  beforeAll(async () => {
    s3 = await startFakeS3();
    t = await startTestApp(s3.env);
    alice = await issueUser(t);
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
  });

  it('answers 503 / 1500 with no-store on download and upload, never 500', async () => {
    const media = await upload(t, alice, PNG, { filename: 'a.png', kind: 'image' });
    await s3.stop();
    const unavailable = {
      code: 1500,
      msg: 'service temporarily unavailable: the media storage did not answer; retry later',
      data: null,
    };
    const reply = await download(t, alice, media.media_id);
    expect({ status: reply.status, body: reply.body, cache: reply.headers['cache-control'] }).toEqual({
      status: 503,
      body: unavailable,
      cache: 'no-store',
    });
    const up = await t.http
      .post('/app/sdk/media/upload')
      .set(...bearer(alice.token))
      .attach('file', PNG, 'b.png');
    expect({ status: up.status, body: up.body as unknown }).toEqual({ status: 503, body: unavailable });
  });
});

describe('Media on the local driver, for comparison', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answers a recorded media whose file is gone exactly like the S3 driver (1207)', async () => {
    const alice = await issueUser(t);
    const media = await upload(t, alice, PNG, { filename: 'gone.png', kind: 'image' });
    const stored = await t.app.get(MediaRepository).findById(media.media_id);
    rmSync(join(t.config.messaging.media.dir, ...stored!.storageKey.split('/')));
    expectAbsent(await download(t, alice, media.media_id));
  });
});
