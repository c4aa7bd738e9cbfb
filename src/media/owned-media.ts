import type { MediaKind } from './media.entity';

/** An upload as a message carries it. */
export interface OwnedMedia {
  id: string;
  kind: MediaKind;
  mimeType: string;
  size: number;
  fileName: string;
}
