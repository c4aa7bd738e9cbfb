import { readChoice } from './env-values';

/**
 * Where media bytes are kept: `local` (MEDIA_DIR, one instance) or an S3-compatible bucket shared by every instance.
 */
export const MEDIA_STORAGE_DRIVERS = ['local', 's3'] as const;
export type MediaStorageDriver = (typeof MEDIA_STORAGE_DRIVERS)[number];

export interface S3StorageConfig {
  bucket: string;
  region: string;
  /** null: the AWS endpoint of the region. */
  endpoint: string | null;
  forcePathStyle: boolean;
  /** "" or a key prefix ending in "/" (e.g. "media/"), put before every storage key. */
  prefix: string;
  /** null: the SDK's default credential chain (AWS_* variables, shared files, instance or task role). */
  credentials: { accessKeyId: string; secretAccessKey: string } | null;
}

export type MediaStorageConfig = { driver: 'local' } | ({ driver: 's3' } & S3StorageConfig);

/** S3 bucket names, legacy ones (capitals, underscores) included; the boot's HeadBucket is the real check. */
const BUCKET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{1,61}[A-Za-z0-9]$/;
const REGION = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
/** One prefix segment: S3's "safe" key characters only, so a key never needs escaping. */
const PREFIX_SEGMENT = /^[A-Za-z0-9!_.*'()-]+$/;

/**
 * MEDIA_STORAGE and the MEDIA_S3_* variables. With the default credential chain allowed in every
 * environment (production included), the keys are optional: an instance role is the usual way
 * on AWS, and a missing or wrong credential still stops the boot at the bucket check.
 */
export function loadMediaStorageConfig(env: NodeJS.ProcessEnv, problems: string[]): MediaStorageConfig {
  const driver = readChoice(env, 'MEDIA_STORAGE', MEDIA_STORAGE_DRIVERS, 'local', problems);
  const bucket = (env.MEDIA_S3_BUCKET ?? '').trim();
  if (driver !== 's3') {
    // A bucket named without the driver is almost surely a forgotten MEDIA_STORAGE=s3: every
    // instance would then keep its own files, the very problem the bucket is meant to solve.
    if (bucket && (env.MEDIA_STORAGE ?? '') === '')
      problems.push(
        'MEDIA_S3_BUCKET is set but MEDIA_STORAGE is not: set MEDIA_STORAGE=s3 to use the bucket (or local to keep files under MEDIA_DIR)',
      );
    return { driver: 'local' };
  }

  if (!bucket) problems.push('MEDIA_S3_BUCKET is required when MEDIA_STORAGE=s3');
  else if (!BUCKET_NAME.test(bucket) || bucket.includes('..'))
    problems.push(`MEDIA_S3_BUCKET must be a bucket name: 3 to 63 letters, digits, ".", "-" or "_" (got "${bucket}")`);

  const region = (env.MEDIA_S3_REGION ?? '').trim() || 'us-east-1';
  if (!REGION.test(region)) problems.push(`MEDIA_S3_REGION must be a region name such as eu-west-1 (got "${region}")`);

  return {
    driver,
    bucket,
    region,
    endpoint: readEndpoint(env, problems),
    forcePathStyle: readBoolean(env, 'MEDIA_S3_FORCE_PATH_STYLE', false, problems),
    prefix: readPrefix(env, problems),
    credentials: readCredentials(env, problems),
  };
}

function readEndpoint(env: NodeJS.ProcessEnv, problems: string[]): string | null {
  const raw = (env.MEDIA_S3_ENDPOINT ?? '').trim();
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    problems.push('MEDIA_S3_ENDPOINT must be an http(s) URL such as http://minio:9000');
    return null;
  }
  if (url.username || url.password) {
    // The endpoint appears in boot errors; credentials belong in the two key variables.
    problems.push(
      'MEDIA_S3_ENDPOINT must not contain credentials: use MEDIA_S3_ACCESS_KEY_ID and MEDIA_S3_SECRET_ACCESS_KEY',
    );
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname || url.search || url.hash) {
    problems.push('MEDIA_S3_ENDPOINT must be an http(s) URL such as http://minio:9000 (no query or fragment)');
    return null;
  }
  return raw.replace(/\/+$/, '');
}

function readBoolean(env: NodeJS.ProcessEnv, name: string, fallback: boolean, problems: string[]): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw !== 'true' && raw !== 'false') {
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  }
  return raw === 'true';
}

function readPrefix(env: NodeJS.ProcessEnv, problems: string[]): string {
  const raw = (env.MEDIA_S3_PREFIX ?? '').trim().replace(/^\/+|\/+$/g, '');
  if (!raw) return '';
  const segments = raw.split('/');
  if (raw.length > 256 || segments.some((s) => !PREFIX_SEGMENT.test(s) || s === '.' || s === '..')) {
    problems.push(
      `MEDIA_S3_PREFIX must be at most 256 characters of path segments made of letters, digits and !_.*'()- (no empty, "." or ".." segment; got "${raw}")`,
    );
    return '';
  }
  return `${raw}/`;
}

function readCredentials(env: NodeJS.ProcessEnv, problems: string[]): S3StorageConfig['credentials'] {
  const accessKeyId = env.MEDIA_S3_ACCESS_KEY_ID ?? '';
  const secretAccessKey = env.MEDIA_S3_SECRET_ACCESS_KEY ?? '';
  if (!accessKeyId && !secretAccessKey) return null;
  // Names only: the values are secrets and never appear in a message.
  if (!accessKeyId) problems.push('MEDIA_S3_ACCESS_KEY_ID is required when MEDIA_S3_SECRET_ACCESS_KEY is set');
  if (!secretAccessKey) problems.push('MEDIA_S3_SECRET_ACCESS_KEY is required when MEDIA_S3_ACCESS_KEY_ID is set');
  if (!accessKeyId || !secretAccessKey) return null;
  return { accessKeyId, secretAccessKey };
}
