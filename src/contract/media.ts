export type MediaKind = 'image' | 'file';

export interface MediaReply {
  media_id: string;
  kind: MediaKind;
  /** Sniffed from the bytes (the client type and name are ignored). */
  mime_type: string;
  /** Bytes. */
  size: number;
  /** The client file name, cleaned; "" when none. */
  file_name: string;
  /** Download path (needs the IM token). */
  url: string;
  created_at: number;
}

/** `POST /app/sdk/media/upload`. */
export interface MediaUploadReply {
  media: MediaReply;
}

/** The media limits in the `sync` reply, so that clients can check before uploading. */
export interface MediaLimits {
  max_image_bytes: number;
  max_file_bytes: number;
  /** Sniffed types an `image` upload may be. */
  image_types: string[];
}
