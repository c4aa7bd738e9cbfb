import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { isDecimalId } from '../common/ids';
import { insertRow } from '../database/insert-row';
import { MediaLinkEntity } from './media-link.entity';
import { MediaEntity } from './media.entity';
import type { OwnedMedia } from './owned-media';

export type NewMedia = Omit<MediaEntity, 'id'>;

/** What a message needs to know about an attachment its sender uploaded. */

/**
 * The `media` and `media_links` tables. Exported for the messaging core: a message that
 * carries an upload checks it with {@link findOwned} and records itself with {@link linkToMessage}
 * in its transaction; a recall or delete takes that back with {@link unlinkMessage}.
 */
@Injectable()
export class MediaRepository {
  constructor(
    @InjectRepository(MediaEntity) private readonly media: Repository<MediaEntity>,
    @InjectRepository(MediaLinkEntity) private readonly links: Repository<MediaLinkEntity>,
  ) {}

  async insert(values: NewMedia): Promise<MediaEntity> {
    const entity = this.media.create(values);
    const result = await this.media.insert(entity);
    entity.id = String(result.identifiers[0].id);
    return entity;
  }

  /** A malformed ID finds nothing (MySQL would otherwise read "12abc" as 12). */
  findById(mediaId: string): Promise<MediaEntity | null> {
    return isDecimalId(mediaId) ? this.media.findOneBy({ id: mediaId }) : Promise.resolve(null);
  }

  /** The media item if `ownerId` uploaded it; null for anything else, a malformed ID included. */
  async findOwned(mediaId: string, ownerId: string, manager?: EntityManager): Promise<OwnedMedia | null> {
    if (!isDecimalId(mediaId)) return null;
    const media = await (manager ? manager.getRepository(MediaEntity) : this.media).findOneBy({ id: mediaId, ownerId });
    if (!media) return null;
    return { id: media.id, kind: media.kind, mimeType: media.mimeType, size: media.size, fileName: media.fileName };
  }

  /** The message at `seq` of the conversation carries the media: who may see it may download it. */
  async linkToMessage(
    manager: EntityManager,
    mediaId: string,
    conversationId: string,
    seq: string,
    now: number,
  ): Promise<void> {
    await insertRow(manager, MediaLinkEntity, { mediaId, conversationId, seq, createdAt: now });
  }

  /** The message became a tombstone: its content, the media reference included, is gone. */
  async unlinkMessage(manager: EntityManager, conversationId: string, seq: string): Promise<void> {
    await manager.delete(MediaLinkEntity, { conversationId, seq });
  }

  /**
   * A page of the owner's uploads in ID order after `afterId` (erasure), with whether a message
   * still carries each.
   */
  async listOwnedBy(
    ownerId: string,
    afterId: string | null,
    limit: number,
  ): Promise<Array<{ id: string; storageKey: string; linked: boolean }>> {
    const rows = (await this.media.query(
      `SELECT m.id, m.storage_key, EXISTS (SELECT 1 FROM media_links l WHERE l.media_id = m.id) AS linked
       FROM media m WHERE m.owner_id = ?${afterId === null ? '' : ' AND m.id > ?'} ORDER BY m.id LIMIT ${Number(limit)}`,
      afterId === null ? [ownerId] : [ownerId, afterId],
    )) as Array<{ id: string | number; storage_key: string; linked: number | string }>;
    return rows.map((row) => ({ id: String(row.id), storageKey: row.storage_key, linked: Number(row.linked) > 0 }));
  }

  /** The media row and its links (the message is a tombstone or the owner erased). */
  async deleteWithLinks(id: string): Promise<void> {
    await this.links.delete({ mediaId: id });
    await this.media.delete({ id });
  }

  /** The messages that carry the media, oldest link first. */
  async findLinks(mediaId: string): Promise<Array<{ conversationId: string; seq: string }>> {
    const links = await this.links.find({
      select: { conversationId: true, seq: true },
      where: { mediaId },
      order: { id: 'ASC' },
    });
    return links.map((link) => ({ conversationId: link.conversationId, seq: link.seq }));
  }
}
