import type { MediaUploadReply } from '../../../../src/contract/index.js';
import type { ApiTransport, UploadOptions } from './transport.js';

/** What {@link MediaApi.upload} takes besides the bytes. */
export interface MediaUploadOptions extends UploadOptions {
  /** `image` (checked as one, smaller limit) or `file`. */
  kind: 'image' | 'file';
  /** The file name the receiver sees; a `File`'s own name when absent. */
  name?: string;
}

/** The SDK endpoints for media: upload (progress, abort) and download. */
export class MediaApi {
  private readonly urls = new Map<string, Promise<string>>();

  constructor(private readonly transport: ApiTransport) {}

  /** Uploads bytes; answers `{media}` whose `media_id` goes into an image or file message. */
  upload(file: Blob, options: MediaUploadOptions): Promise<MediaUploadReply> {
    const form = new FormData();
    form.append('kind', options.kind);
    form.append('file', file, options.name ?? (file as { name?: string }).name ?? 'upload');
    return this.transport.upload<MediaUploadReply>('/app/sdk/media/upload', form, {
      onProgress: options.onProgress,
      signal: options.signal,
    });
  }

  /** The bytes of a media item the user may see (the download needs the IM token, so an `<img src>` cannot fetch it). */
  download(mediaId: string): Promise<Blob> {
    return this.transport.download(`/app/sdk/media/${encodeURIComponent(mediaId)}`);
  }

  /**
   * An object URL for `<img src>` / `<a href>` (browsers), made once per media item and kept
   * until {@link revokeUrls} (logout does it).
   */
  objectUrl(mediaId: string): Promise<string> {
    let url = this.urls.get(mediaId);
    if (!url) {
      url = this.download(mediaId).then((blob) => URL.createObjectURL(blob));
      // A failed download is not cached: the next call tries again.
      url.catch(() => this.urls.delete(mediaId));
      this.urls.set(mediaId, url);
    }
    return url;
  }

  /** Releases the object URLs made by {@link objectUrl}. */
  revokeUrls(): void {
    for (const url of this.urls.values()) void url.then((u) => URL.revokeObjectURL(u)).catch(() => undefined);
    this.urls.clear();
  }
}
