/**
 * Where the SDK hears that the page came to the foreground and that the network came back.
 * Browsers: `document` and `window`. Elsewhere (tests, workers) pass your own.
 */
export interface ClientEnvironment {
  onForeground(listener: () => void): () => void;
  onOnline(listener: () => void): () => void;
}

interface EventTargetLike {
  addEventListener(type: string, listener: () => void): void;
  removeEventListener(type: string, listener: () => void): void;
}

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
