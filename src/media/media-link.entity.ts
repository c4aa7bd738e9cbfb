import { Column, Entity, Index } from 'typeorm';
import { IdColumn, bigintId, msTime } from '../database/columns';

/** A media item was sent into a conversation: its members may download it. */
@Entity('media_links')
@Index('UQ_media_links_media_conversation', ['mediaId', 'conversationId'], { unique: true })
export class MediaLinkEntity {
  @IdColumn()
  id: string;

  @Column({ name: 'media_id', type: 'bigint', transformer: bigintId })
  mediaId: string;

  @Column({ name: 'conversation_id', type: 'bigint', transformer: bigintId })
  conversationId: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;
}
