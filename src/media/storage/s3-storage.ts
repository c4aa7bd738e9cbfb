import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Logger, OnModuleDestroy } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { S3StorageConfig } from '../../config/media-config';
import { MediaStorage, STORAGE_KEY, mediaObjectMissing, mediaStorageUnavailable } from './media-storage';

/** Opening a TCP (and TLS) connection to the endpoint. */
const CONNECT_TIMEOUT_MS = 3000;
/**
 * A socket silent this long is dropped. It also bounds a download whose client stops reading
 * (back-pressure pauses the S3 socket), so a stalled client cannot hold a pooled socket for ever.
 */
const IDLE_TIMEOUT_MS = 30_000;
/** The first answer of a read or of the boot check, retries included; the body then streams without a deadline. */
const ANSWER_TIMEOUT_MS = 10_000;
/**
 * Every download in flight holds one socket until its client has read it all; the SDK's default of 50 is low for that.
 */
const MAX_SOCKETS = 256;

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNABORTED',
  'ERR_SOCKET_CONNECTION_TIMEOUT',
]);
const UNAVAILABLE_NAMES = new Set([
  'TimeoutError',
  'AbortError',
  'RequestTimeout',
  'RequestTimeoutException',
  'SlowDown',
  'ServiceUnavailable',
  'InternalError',
  'NoSuchBucket',
]);

interface S3ErrorShape {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

const shapeOf = (error: unknown): S3ErrorShape => (error && typeof error === 'object' ? (error as S3ErrorShape) : {});
const statusOf = (error: unknown): number | undefined => shapeOf(error).$metadata?.httpStatusCode;

/**
 * The socket error code, also when the SDK had to wrap an error from another realm (a VM
 * context, as under jest) into a plain Error that keeps only the message.
 */
function networkCode(error: unknown): string | undefined {
  const { code, message } = shapeOf(error);
  if (code !== undefined && NETWORK_CODES.has(code)) return code;
  const quoted = typeof message === 'string' ? /\b(E[A-Z_]{4,})\b/.exec(message)?.[1] : undefined;
  return quoted !== undefined && NETWORK_CODES.has(quoted) ? quoted : undefined;
}

function isUnreachable(error: unknown): boolean {
  const { name } = shapeOf(error);
  return networkCode(error) !== undefined || (name !== undefined && UNAVAILABLE_NAMES.has(name));
}

/** The backend did not answer, or answered that it cannot now: the request may succeed later. */
function isUnavailable(error: unknown): boolean {
  const status = statusOf(error);
  return isUnreachable(error) || status === 429 || (status !== undefined && status >= 500);
}

/** Names and codes only: an SDK message can quote request details, never worth a log line. */
function describe(error: unknown): string {
  const { name, code } = shapeOf(error);
  const status = statusOf(error);
  const shown = networkCode(error) ?? code;
  return [name ?? 'Error', shown && shown !== name ? shown : null, status ? `HTTP ${status}` : null]
    .filter(Boolean)
    .join(', ');
}

export function createS3Client(config: S3StorageConfig): S3Client {
  return new S3Client({
    region: config.region,
    endpoint: config.endpoint ?? undefined,
    forcePathStyle: config.forcePathStyle,
    credentials: config.credentials ?? undefined,
    // Checksums only where the API requires them: many S3-compatible stores refuse the SDK's
    // newer default headers. put() sends Content-MD5 instead, which S3 and the usual compatible
    // stores verify.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: {
      connectionTimeout: CONNECT_TIMEOUT_MS,
      socketTimeout: IDLE_TIMEOUT_MS,
      httpAgent: { keepAlive: true, maxSockets: MAX_SOCKETS },
      httpsAgent: { keepAlive: true, maxSockets: MAX_SOCKETS },
    },
  });
}

/**
 * Media in an S3-compatible bucket (AWS S3, MinIO, Ceph RGW, R2, …), so that every instance
 * serves what any of them stored. Keys are the local driver's keys under MEDIA_S3_PREFIX. A
 * PutObject is atomic: the object appears complete or not at all.
 */
export class S3Storage extends MediaStorage implements OnModuleDestroy {
  private readonly logger = new Logger(S3Storage.name);
  private readonly client: S3Client;

  constructor(
    private readonly config: S3StorageConfig,
    client?: S3Client,
  ) {
    super();
    this.client = client ?? createS3Client(config);
  }

  /** Where the bucket is, for messages: the endpoint never carries credentials (the config refuses them). */
  get location(): string {
    return `bucket "${this.config.bucket}" at ${this.config.endpoint ?? `AWS S3 ${this.config.region}`}`;
  }

  /** HeadBucket, so that a wrong bucket, endpoint or credential stops the boot rather than the first upload. */
  async prepare(): Promise<void> {
    try {
      await this.withDeadline((abortSignal) =>
        this.client.send(new HeadBucketCommand({ Bucket: this.config.bucket }), { abortSignal }),
      );
    } catch (error) {
      // The instance is discarded with the failed boot: its pooled sockets must not keep the process alive.
      this.client.destroy();
      throw new Error(`media storage (MEDIA_STORAGE=s3): ${this.location} is not usable: ${this.bootProblem(error)}`);
    }
  }

  async put(key: string, data: Buffer): Promise<void> {
    const command = new PutObjectCommand({
      Bucket: this.config.bucket,
      Key: this.objectKey(key),
      Body: data,
      ContentLength: data.length,
      ContentMD5: createHash('md5').update(data).digest('base64'),
      // The served type is the sniffed one from the database; the object itself is opaque.
      ContentType: 'application/octet-stream',
    });
    try {
      await this.client.send(command);
    } catch (error) {
      throw this.translate('put', key, error);
    }
  }

  async open(key: string): Promise<Readable> {
    const command = new GetObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) });
    let body: unknown;
    try {
      ({ Body: body } = await this.withDeadline((abortSignal) => this.client.send(command, { abortSignal })));
    } catch (error) {
      const { name } = shapeOf(error);
      if (name === 'NoSuchKey' || (statusOf(error) === 404 && name !== 'NoSuchBucket')) {
        this.logger.warn(`media object ${key} is recorded but missing from ${this.location}`);
        throw mediaObjectMissing();
      }
      throw this.translate('open', key, error);
    }
    // In Node the body is the HTTP response itself: handing it on streams S3 to the client.
    if (!(body instanceof Readable)) throw new Error('S3 GetObject returned no readable body');
    return body;
  }

  async remove(key: string): Promise<void> {
    // S3 answers a delete of a missing key with success, as the interface asks.
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) }));
    } catch (error) {
      throw this.translate('remove', key, error);
    }
  }

  /** Closes the pooled sockets, so that a stopping process does not wait for them. */
  onModuleDestroy(): void {
    this.client.destroy();
  }

  private objectKey(key: string): string {
    if (!STORAGE_KEY.test(key)) throw new Error('malformed media storage key');
    return `${this.config.prefix}${key}`;
  }

  /**
   * Bounds the wait for S3's first answer (retries included) without bounding the body: the
   * timer is cleared once the response headers are in, and the signal is then never fired.
   */
  private async withDeadline<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), ANSWER_TIMEOUT_MS);
    try {
      return await work(controller.signal);
    } finally {
      clearTimeout(timer);
    }
  }

  /** An outage becomes 503 / 1500 (retry later); anything else stays a fault, logged by the exception filter. */
  private translate(operation: string, key: string, error: unknown): unknown {
    if (!isUnavailable(error)) return error;
    this.logger.warn(
      `media storage ${operation} of ${key} failed: ${this.location} did not answer (${describe(error)})`,
    );
    return mediaStorageUnavailable();
  }

  private bootProblem(error: unknown): string {
    const status = statusOf(error);
    const { name } = shapeOf(error);
    if (name === 'CredentialsProviderError')
      return 'no credentials: set MEDIA_S3_ACCESS_KEY_ID and MEDIA_S3_SECRET_ACCESS_KEY, or provide them through the default AWS credential chain';
    if (status === 404 || name === 'NotFound' || name === 'NoSuchBucket') {
      const pathStyle =
        this.config.endpoint && !this.config.forcePathStyle
          ? '; if the endpoint does not serve bucket names as host names, set MEDIA_S3_FORCE_PATH_STYLE=true'
          : '';
      return `the bucket does not exist (HeadBucket answered 404): check MEDIA_S3_BUCKET${pathStyle}`;
    }
    if (status === 401 || status === 403) {
      return `access denied (HeadBucket answered ${status}): check MEDIA_S3_ACCESS_KEY_ID and MEDIA_S3_SECRET_ACCESS_KEY (or the role); they need s3:ListBucket on the bucket and s3:GetObject, s3:PutObject, s3:DeleteObject on its objects`;
    }
    if (status === 301 || status === 307)
      return `the bucket is in another region than MEDIA_S3_REGION=${this.config.region} (HeadBucket answered ${status})`;
    if (status === 400)
      return 'the request was refused (HeadBucket answered 400): check MEDIA_S3_REGION and MEDIA_S3_ENDPOINT';
    if (isUnreachable(error))
      return `the endpoint could not be reached or did not answer within ${ANSWER_TIMEOUT_MS} ms (${describe(error)}): check MEDIA_S3_ENDPOINT and the network`;
    return `HeadBucket failed (${describe(error)})`;
  }
}
