import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { AppError } from '../../common/app-error';
import { ErrorCode } from '../../common/error-code';

/** Storage keys: two levels of fan-out directories and a random name, never derived from user input. */
export const STORAGE_KEY = /^[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{32}$/;

export function newStorageKey(): string {
  const name = randomBytes(16).toString('hex');
  return `${name.slice(0, 2)}/${name.slice(2, 4)}/${name}`;
}

/**
 * What `open()` rejects with, whatever the driver, when a recorded object has no bytes: the
 * client gets the same 1207 as for media it may not see, never a 500.
 */
export function mediaObjectMissing(): AppError {
  return new AppError(ErrorCode.MESSAGE_ABSENT, 'media_id: media absent or not accessible');
}

/** A storage backend that did not answer (network, timeout, its own 5xx): 503 / 1500, worth retrying. */
export function mediaStorageUnavailable(): AppError {
  return AppError.unavailable('the media storage did not answer');
}

/**
 * Where media bytes live: {@link LocalDiskStorage} (one instance) or {@link S3Storage} (shared by
 * every instance), chosen by MEDIA_STORAGE. Both implement the same three operations on the same keys.
 */
export abstract class MediaStorage {
  /**
   * Stores the bytes under a new key; the object appears complete or not at all. The bytes come
   * as one Buffer: multer has already held the whole part in memory (bounded by the upload
   * limits) so that the service can sniff, measure and hash it before anything is stored.
   */
  abstract put(key: string, data: Buffer): Promise<void>;

  /**
   * Opens the stored bytes for reading, as a stream that is read as the client takes it (never
   * buffered whole); rejects with {@link mediaObjectMissing} when the object is missing.
   */
  abstract open(key: string): Promise<Readable>;

  /** Removes the object; a missing object is not an error. */
  abstract remove(key: string): Promise<void>;
}
