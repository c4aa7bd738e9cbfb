import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { MediaRepository } from './media.repository';
import type { OwnedMedia } from './owned-media';

/**
 * Uploads as messages carry them: the sender's own upload for an image or file message, and
 * the link from a message to its media that download permission rests on (who may see the
 * message may download it). The messages module writes links inside its own transactions.
 */
@Injectable()
export class MediaAttachments {
  constructor(private readonly media: MediaRepository) {}

  /** The user's own upload, or null (also for an ID that is not one). */
  findOwned(mediaId: string, ownerId: string): Promise<OwnedMedia | null> {
    return this.media.findOwned(mediaId, ownerId);
  }

  /** The message at `seq` of the conversation carries the media. */
  linkToMessage(
    manager: EntityManager,
    mediaId: string,
    conversationId: string,
    seq: string,
    now: number,
  ): Promise<void> {
    return this.media.linkToMessage(manager, mediaId, conversationId, seq, now);
  }

  /** The message at `seq` was recalled or deleted: it no longer lends access to its media. */
  unlinkMessage(manager: EntityManager, conversationId: string, seq: string): Promise<void> {
    return this.media.unlinkMessage(manager, conversationId, seq);
  }
}
