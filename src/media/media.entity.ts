import { Column, Entity, Index } from 'typeorm';
import { IdColumn, bigintId, msTime } from '../database/columns';

export type MediaKind = 'image' | 'file';

@Entity('media')
@Index('IDX_media_owner', ['ownerId'])
export class MediaEntity {
  @IdColumn()
  id: string;

  @Column({ name: 'owner_id', type: 'bigint', transformer: bigintId })
  ownerId: string;

  @Column({ type: 'varchar', length: 8 })
  kind: MediaKind;

  /** Sniffed from the bytes, never taken from the client. */
  @Column({ name: 'mime_type', type: 'varchar', length: 100 })
  mimeType: string;

  @Column({ type: 'bigint', transformer: msTime })
  size: number;

  @Column({ type: 'varchar', length: 64 })
  sha256: string;

  @Column({ name: 'storage_key', type: 'varchar', length: 128 })
  storageKey: string;

  @Column({ name: 'file_name', type: 'varchar', length: 255, default: '' })
  fileName: string;

  @Column({ name: 'created_at', type: 'bigint', transformer: msTime })
  createdAt: number;
}
