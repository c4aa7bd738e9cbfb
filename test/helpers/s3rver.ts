import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The part of s3rver's API used here (the package ships no types). */
interface S3rverServer {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  httpServer?: Server;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverServer;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const S3rver = require('s3rver') as S3rverClass;

/** s3rver's built-in account: the only key pair it accepts. */
export const S3RVER_KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface FakeS3 {
  endpoint: string;
  port: number;
  bucket: string;
  directory: string;
  /** MEDIA_STORAGE=s3 settings pointing at this server. */
  env: Record<string, string>;
  /** Stops listening and drops open connections: the endpoint then refuses connections. */
  stop(): Promise<void>;
  /** stop() and remove the files. */
  close(): Promise<void>;
}

/** A fake S3 on 127.0.0.1 (random port), one bucket, objects kept in a temporary directory. */
export async function startFakeS3(bucket = 'im-media'): Promise<FakeS3> {
  const directory = mkdtempSync(join(tmpdir(), 'im-s3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  let running = true;
  const stop = async (): Promise<void> => {
    if (!running) return;
    running = false;
    const closed = server.close();
    // The SDK keeps sockets alive; close() alone would wait for them.
    server.httpServer?.closeAllConnections();
    await closed;
  };
  return {
    endpoint,
    port,
    bucket,
    directory,
    env: {
      MEDIA_STORAGE: 's3',
      MEDIA_S3_ENDPOINT: endpoint,
      MEDIA_S3_BUCKET: bucket,
      MEDIA_S3_FORCE_PATH_STYLE: 'true',
      MEDIA_S3_ACCESS_KEY_ID: S3RVER_KEYS.accessKeyId,
      MEDIA_S3_SECRET_ACCESS_KEY: S3RVER_KEYS.secretAccessKey,
    },
    stop,
    async close() {
      await stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
