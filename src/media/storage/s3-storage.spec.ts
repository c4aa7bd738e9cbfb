import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { FakeS3, S3RVER_KEYS, startFakeS3 } from '../../../test/helpers/s3rver';
import { AppError } from '../../common/app-error';
import type { S3StorageConfig } from '../../config/media-config';
import { newStorageKey } from './media-storage';
import { S3Storage, createS3Client } from './s3-storage';

const settings = (s3: FakeS3, overrides: Partial<S3StorageConfig> = {}): S3StorageConfig => ({
  bucket: s3.bucket,
  region: 'us-east-1',
  endpoint: s3.endpoint,
  forcePathStyle: true,
  prefix: 'unit/',
  credentials: S3RVER_KEYS,
  ...overrides,
});

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('S3Storage', () => {
  let s3: FakeS3;
  let storage: S3Storage;
  const opened: S3Storage[] = [];
  const use = (config: S3StorageConfig, client?: S3Client): S3Storage => {
    const created = new S3Storage(config, client);
    opened.push(created);
    return created;
  };

  beforeAll(async () => {
    s3 = await startFakeS3();
    storage = use(settings(s3));
    await storage.prepare();
  });

  afterAll(async () => {
    for (const created of opened) created.onModuleDestroy();
    await s3.close();
  });

  it('stores, streams back and removes an object under MEDIA_S3_PREFIX', async () => {
    const key = newStorageKey();
    const data = randomBytes(70_000);
    await storage.put(key, data);
    expect(await readAll(await storage.open(key))).toEqual(data);

    const raw = createS3Client(settings(s3));
    try {
      const object = await raw.send(new GetObjectCommand({ Bucket: s3.bucket, Key: `unit/${key}` }));
      expect(Buffer.from(await object.Body!.transformToByteArray())).toEqual(data);
    } finally {
      raw.destroy();
    }

    await storage.remove(key);
    await storage.remove(key); // a missing object is not an error
    const missing = await rejectionOf(storage.open(key));
    expect(missing).toBeInstanceOf(AppError);
    expect(missing).toMatchObject({ code: 1207, status: 200, message: 'media_id: media absent or not accessible' });
  });

  it('sends Content-MD5 so that the store refuses bytes damaged on the way', async () => {
    const client = createS3Client(settings(s3));
    const sent: Record<string, string>[] = [];
    client.middlewareStack.add(
      (next) => async (args) => {
        sent.push({ ...(args.request as { headers: Record<string, string> }).headers });
        return next(args);
      },
      { step: 'finalizeRequest' },
    );
    const data = Buffer.from('checked bytes');
    await use(settings(s3), client).put(newStorageKey(), data);
    expect(sent[0]['content-md5']).toBe(createHash('md5').update(data).digest('base64'));
    expect(sent[0]['content-length']).toBe(String(data.length));
  });

  it('refuses a key that is not a storage key', async () => {
    await expect(storage.open('../etc/passwd')).rejects.toThrow('malformed media storage key');
  });

  it('hands over the S3 body as it arrives, without reading the object into memory', async () => {
    const key = newStorageKey();
    const size = 48 * 1024 * 1024;
    const data = randomBytes(size);
    await storage.put(key, data);
    const stream = await storage.open(key);
    // Nobody reads for a while: only socket and stream buffers fill, far from the whole object.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const received = (stream as IncomingMessage).socket?.bytesRead ?? 0;
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan(8 * 1024 * 1024);
    const read = await readAll(stream);
    expect(read.length).toBe(size);
    expect(createHash('sha256').update(read).digest('hex')).toBe(createHash('sha256').update(data).digest('hex'));
    await storage.remove(key);
  });

  describe('prepare() stops the boot with a message naming the cause and never a secret', () => {
    it('for a bucket that does not exist', async () => {
      const error = await rejectionOf(use(settings(s3, { bucket: 'no-such-bucket' })).prepare());
      expect(error.message).toBe(
        `media storage (MEDIA_STORAGE=s3): bucket "no-such-bucket" at ${s3.endpoint} is not usable: the bucket does not exist (HeadBucket answered 404): check MEDIA_S3_BUCKET`,
      );
    });

    // s3rver checks the key ID, not V4 signatures: an unknown key ID stands for any refused credential.
    it('for credentials the store refuses', async () => {
      const secret = 'not-the-secret-0123456789';
      const error = await rejectionOf(
        use(settings(s3, { credentials: { accessKeyId: 'UNKNOWNKEY', secretAccessKey: secret } })).prepare(),
      );
      expect(error.message).toMatch(
        /is not usable: access denied \(HeadBucket answered 403\): check MEDIA_S3_ACCESS_KEY_ID and MEDIA_S3_SECRET_ACCESS_KEY/,
      );
      expect(error.message).not.toContain(secret);
    });

    it('for an endpoint where nothing listens', async () => {
      const down = await startFakeS3();
      await down.close();
      const error = await rejectionOf(use(settings(down)).prepare());
      expect(error.message).toMatch(
        new RegExp(
          `^media storage \\(MEDIA_STORAGE=s3\\): bucket "im-media" at ${down.endpoint} is not usable: the endpoint could not be reached .*ECONNREFUSED.*check MEDIA_S3_ENDPOINT`,
        ),
      );
    });
  });

  it('answers 503 / 1500 for reads and writes while the store is out of reach', async () => {
    const other = await startFakeS3();
    try {
      const flaky = use(settings(other));
      await flaky.prepare();
      const key = newStorageKey();
      await flaky.put(key, Buffer.from('before the outage'));
      await other.stop();
      for (const attempt of [() => flaky.open(key), () => flaky.put(newStorageKey(), Buffer.from('x'))]) {
        const error = await rejectionOf(attempt());
        expect(error).toBeInstanceOf(AppError);
        expect(error).toMatchObject({
          code: 1500,
          status: 503,
          message: 'service temporarily unavailable: the media storage did not answer; retry later',
        });
      }
    } finally {
      await other.close();
    }
  });
});
