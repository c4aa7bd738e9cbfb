import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';

/** Storage keys: two levels of fan-out directories and a random name, never derived from user input. */
export const STORAGE_KEY = /^[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{32}$/;

export function newStorageKey(): string {
  const name = randomBytes(16).toString('hex');
  return `${name.slice(0, 2)}/${name.slice(2, 4)}/${name}`;
}

/**
 * Where media bytes live. The module provides {@link LocalDiskStorage}; an S3-compatible driver
 * implements the same three operations on the same keys.
 */
export abstract class MediaStorage {
  /** Stores the bytes under a new key; the object appears complete or not at all. */
  abstract put(key: string, data: Buffer): Promise<void>;

  /** Opens the stored bytes for reading; rejects when the object is missing. */
  abstract open(key: string): Promise<Readable>;

  /** Removes the object; a missing object is not an error. */
  abstract remove(key: string): Promise<void>;
}
