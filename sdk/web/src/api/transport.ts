import type { Query } from '../http.js';

/** Progress of an upload, in bytes. `total` is 0 when the size is not known. */
export interface UploadProgress {
  loaded: number;
  total: number;
}

/** Options of an upload: progress reports and cancellation. */
export interface UploadOptions {
  onProgress?: (progress: UploadProgress) => void;
  /** Aborting rejects the upload with an `ImError` of kind `aborted`. */
  signal?: AbortSignal;
}

/**
 * What the API namespaces call: the IM-token HTTP client with renewal, backoff and typed
 * errors, and a way to end the session when renewal fails for good. Paths live in the
 * namespaces only; an application never writes one.
 */
export interface ApiTransport {
  get<T>(path: string, query?: Query): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
  upload<T>(path: string, form: FormData, options?: UploadOptions): Promise<T>;
  download(path: string): Promise<Blob>;
  /** The logged-in user's IM ID, or null before login. */
  userId(): string | null;
  /** Marks an HTTP reply's `event_id` as processed, so its real-time echo is skipped. */
  markProcessed(eventId: string): boolean;
}
