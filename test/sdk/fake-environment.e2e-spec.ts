// The environment interface (sdk/web/src/environment.ts): an SDK given its own fetch, upload,
// socket factory, storage and lifecycle hooks (as uni-app or React Native would pass) uses those
// and nothing global: the global fetch is made to throw for the whole test.
import { io } from 'socket.io-client';
import type { ManagerOptions, SocketOptions } from 'socket.io-client';
import {
  ClientEnvironment,
  MemoryStateStore,
  UploadRequest,
  UploadResponse,
  createClient,
} from '../../sdk/web/src/index';
import { friendCid } from '../helpers/api-client';
import { hostProvider, until, useSdkApp } from './sdk-harness';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/** A storage that records what the SDK writes, as a native key-value store would hold it. */
class RecordingStore extends MemoryStateStore {
  readonly saved: string[] = [];
  readonly cleared: string[] = [];
  override async save(key: string, value: unknown): Promise<void> {
    this.saved.push(key);
    await super.save(key, value);
  }
  override async clear(prefix: string): Promise<void> {
    this.cleared.push(prefix);
    await super.clear(prefix);
  }
}

describe('Web SDK: a fake environment (sdk/web/src/environment.ts)', () => {
  const app = useSdkApp();
  const realFetch = globalThis.fetch;
  beforeEach(() => {
    globalThis.fetch = () => Promise.reject(new Error('the global fetch must not be used'));
  });
  afterEach(() => {
    globalThis.fetch = realFetch;
  });

  it('sends HTTP, uploads, connects, stores and hears lifecycle hooks only through the environment', async () => {
    const [a, b] = await app.api.users(2);
    await app.api.befriend(a, b);
    const calls = { fetch: [] as string[], uploads: [] as UploadRequest[], sockets: [] as string[] };
    const hooks = { foreground: new Set<() => void>(), online: new Set<() => void>() };
    const storage = new RecordingStore();
    const environment: ClientEnvironment = {
      onForeground: (listener) => (hooks.foreground.add(listener), () => hooks.foreground.delete(listener)),
      onOnline: (listener) => (hooks.online.add(listener), () => hooks.online.delete(listener)),
      fetch: (input, init) => {
        calls.fetch.push(new URL(String(input)).pathname);
        return realFetch(input, init);
      },
      upload: async (request): Promise<UploadResponse> => {
        calls.uploads.push(request);
        // A native uploader reports progress its own way; the SDK passes it on.
        request.onProgress?.({ loaded: 1, total: 2 });
        const response = await realFetch(request.url, { method: 'POST', headers: request.headers, body: request.body });
        request.onProgress?.({ loaded: 2, total: 2 });
        return { status: response.status, text: await response.text() };
      },
      connect: (uri: string, options: Partial<ManagerOptions & SocketOptions>) => {
        calls.sockets.push(`${uri}${options.path ?? ''}`);
        return io(uri, options);
      },
      storage,
    };
    const c = createClient({ baseUrl: app.base, authProvider: hostProvider(app.t, () => a.userId).fn, environment });
    app.clients.push(c);
    const recoveries: string[][] = [];
    c.on('recover', ({ reasons }) => recoveries.push(reasons));

    await c.login();
    await until(() => c.connected, 'connected through the socket factory');
    expect(calls.sockets).toEqual([`${app.base}/socket.io`]);

    await c.conversations.list();
    expect(calls.fetch).toContain('/app/sdk/sync');
    await until(() => storage.saved.includes(`${a.userId}/home`), 'the home page saved in the given storage');

    const progress: Array<[number, number]> = [];
    const { media } = await c.media.upload(new Blob([PNG], { type: 'image/png' }), {
      kind: 'image',
      name: 'dot.png',
      onProgress: (p) => progress.push([p.loaded, p.total]),
    });
    expect(media.media_id).toEqual(expect.any(String));
    expect(calls.uploads).toHaveLength(1);
    expect(calls.uploads[0].headers.Authorization).toMatch(/^Bearer /);
    expect(progress).toEqual([
      [1, 2],
      [2, 2],
    ]);
    await c.messages.sendImage(friendCid(b), new Blob([PNG], { type: 'image/png' }), { name: 'dot.png' });
    expect(calls.uploads).toHaveLength(2);

    // The environment's lifecycle hooks drive recovery.
    const before = recoveries.length;
    hooks.foreground.forEach((listener) => listener());
    await until(() => recoveries.slice(before).flat().includes('foreground'), 'recovery on foreground');

    c.logout();
    await until(() => storage.cleared.includes(`${a.userId}/`), "logout clears the user's storage");
    c.destroy();
    expect(hooks.foreground.size + hooks.online.size).toBe(0);
  });
});
