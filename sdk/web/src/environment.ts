import { io } from 'socket.io-client';
import type { ManagerOptions, Socket, SocketOptions } from 'socket.io-client';
import type { UploadProgress } from './api/transport.js';
import type { StateStore } from './state-store.js';

/** One multipart upload as the environment sends it. */
export interface UploadRequest {
  url: string;
  headers: Record<string, string>;
  body: FormData;
  signal?: AbortSignal;
  onProgress?: (progress: UploadProgress) => void;
}

/** The raw answer to an upload: the SDK reads the envelope from `text`. */
export interface UploadResponse {
  status: number;
  text: string;
}

/** Opens a socket.io connection (socket.io-client's `io`, or a compatible client). */
export type SocketFactory = (uri: string, options: Partial<ManagerOptions & SocketOptions>) => Socket;

/**
 * Everything the SDK needs from where it runs. Browsers and Node 20 work with the defaults
 * ({@link browserEnvironment}); uni-app, React Native or a test pass their own: lifecycle hooks
 * are required, the rest falls back to the global `fetch`, socket.io-client and IndexedDB (or
 * memory).
 */
export interface ClientEnvironment {
  /** Calls `listener` when the app comes to the foreground. */
  onForeground(listener: () => void): () => void;
  /** Calls `listener` when the network comes back. */
  onOnline(listener: () => void): () => void;
  /** HTTP requests (a `fetch`-compatible function). */
  fetch?: typeof fetch;
  /** Multipart uploads with progress; default: XMLHttpRequest where it exists, else `fetch` (no progress). */
  upload?: (request: UploadRequest) => Promise<UploadResponse>;
  /** The real-time connection. */
  connect?: SocketFactory;
  /** The readable cache across reloads. */
  storage?: StateStore;
}

/** The default socket factory: socket.io-client. */
export const defaultSocketFactory: SocketFactory = (uri, options) => io(uri, options);

interface EventTargetLike {
  addEventListener(type: string, listener: () => void): void;
  removeEventListener(type: string, listener: () => void): void;
}

/** Browsers: `document` visibility and `window`'s `online`. In Node both hooks never fire. */
export function browserEnvironment(): ClientEnvironment {
  const scope = globalThis as unknown as {
    window?: EventTargetLike;
    document?: EventTargetLike & { visibilityState?: string };
  };
  return {
    onForeground(listener) {
      const doc = scope.document;
      if (!doc) return () => undefined;
      const handler = () => {
        if (doc.visibilityState === 'visible') listener();
      };
      doc.addEventListener('visibilitychange', handler);
      return () => doc.removeEventListener('visibilitychange', handler);
    },
    onOnline(listener) {
      const win = scope.window;
      if (!win) return () => undefined;
      win.addEventListener('online', listener);
      return () => win.removeEventListener('online', listener);
    },
  };
}
