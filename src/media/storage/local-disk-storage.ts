import { randomBytes } from 'node:crypto';
import { FileHandle, mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { MediaStorage, STORAGE_KEY, mediaObjectMissing } from './media-storage';

/**
 * Media on the local file system under one root directory (MEDIA_DIR). A put writes a
 * temporary file beside the target, flushes it to disk and renames it into place, so a crash
 * leaves at most a stray `*.tmp` file, never a truncated object under a real key.
 */
export class LocalDiskStorage extends MediaStorage {
  private readonly root: string;

  constructor(root: string) {
    super();
    this.root = resolve(root);
  }

  /** Creates the root directory, so that an unusable MEDIA_DIR stops the boot rather than the first upload. */
  async prepare(): Promise<void> {
    await mkdir(this.root, { recursive: true, mode: 0o750 });
  }

  async put(key: string, data: Buffer): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true, mode: 0o750 });
    const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    let handle: FileHandle | null = null;
    try {
      handle = await open(temp, 'wx', 0o640);
      await handle.writeFile(data);
      await handle.sync();
      await handle.close();
      handle = null;
      await rename(temp, target);
    } catch (error) {
      await handle?.close().catch(() => undefined);
      await rm(temp, { force: true });
      throw error;
    }
    await this.syncDirectory(dirname(target));
  }

  async open(key: string): Promise<Readable> {
    let handle: FileHandle;
    try {
      handle = await open(this.pathOf(key), 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw mediaObjectMissing();
      throw error;
    }
    return handle.createReadStream();
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  private pathOf(key: string): string {
    if (!STORAGE_KEY.test(key)) throw new Error('malformed media storage key');
    return join(this.root, ...key.split('/'));
  }

  /** Makes the rename durable where the platform allows fsync on a directory (best effort). */
  private async syncDirectory(dir: string): Promise<void> {
    let handle: FileHandle | null = null;
    try {
      handle = await open(dir, 'r');
      await handle.sync();
    } catch {
      // Not supported on every platform; the rename itself is still atomic.
    } finally {
      await handle?.close().catch(() => undefined);
    }
  }
}
