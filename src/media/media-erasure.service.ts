import { Injectable, Logger } from '@nestjs/common';
import { MediaRepository } from './media.repository';
import { MediaStorage } from './storage/media-storage';

const BATCH = 200;

/**
 * The media side of erasing a user (server API): their uploads are deleted, row and stored
 * bytes. With `keepLinked` (messages are kept), an upload a kept message still carries stays, so
 * that message keeps working; uploads no message carries go either way.
 */
@Injectable()
export class MediaErasure {
  private readonly logger = new Logger('MediaErasure');

  constructor(
    private readonly media: MediaRepository,
    private readonly storage: MediaStorage,
  ) {}

  /** How many uploads were deleted. The row goes first: bytes left behind by a failure are unreachable. */
  async deleteOwnedBy(ownerId: string, keepLinked: boolean): Promise<number> {
    let deleted = 0;
    let after: string | null = null;
    for (;;) {
      const page = await this.media.listOwnedBy(ownerId, after, BATCH);
      for (const item of page) {
        if (keepLinked && item.linked) continue;
        await this.media.deleteWithLinks(item.id);
        try {
          await this.storage.remove(item.storageKey);
        } catch (error) {
          this.logger.warn(`media ${item.id}: stored bytes not removed (${(error as Error).message})`);
        }
        deleted++;
      }
      if (page.length < BATCH) return deleted;
      after = page[page.length - 1].id;
    }
  }
}
