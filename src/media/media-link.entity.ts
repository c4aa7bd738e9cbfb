import { Column, Entity, Index } from 'typeorm';
import { IdColumn, bigintId, msTime } from '../database/columns';

/** A message carries a media item: whoever may see that message may download it. */
@Entity('media_links')
@Index('UQ_media_links_media_message', ['mediaId', 'conversationId', 'seq'], { unique: true })
@Index('IDX_media_links_message', ['conversationId', 'seq'])
export class MediaLinkEntity {
  @IdColumn()
  id: string;

  @Column({ name: 'media_id', type: 'bigint', transformer: bigintId })
  mediaId: string;

  @Column({ name: 'conversation_id', type: 'bigint', transformer: bigintId })
  conversationId: string;

  /** The message's sequence in the conversation. */
  @Column({ type: 'bigint', transformer: bigintId })
  seq: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;
}
