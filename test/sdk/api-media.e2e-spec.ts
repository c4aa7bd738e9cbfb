// Uploads and downloads through the SDK against the service. Node has no XMLHttpRequest, so the
// SDK uploads with fetch there (progress at the start and at the end) or with the environment's
// own `upload`; the XMLHttpRequest path is unit-tested with a fake (sdk/web/src/http.spec.ts).
// The spec says only that file endpoints use multipart/form-data (4).
import { randomBytes } from 'node:crypto';
import { createClient } from '../../sdk/web/src/index';
import type { UploadProgress, UploadRequest, UploadResponse } from '../../sdk/web/src/index';
import { issueUser } from '../helpers/test-app';
import { hostProvider, testEnvironment, until, useSdkApp } from './sdk-harness';
import { REFUSED, refusal, sdkUser } from './api-kit';

describe('Web SDK: uploads with progress and abort, and downloads', () => {
  const app = useSdkApp();

  it('uploads with progress up to the total, and downloads the same bytes', async () => {
    const alice = await sdkUser(app);
    const bytes = randomBytes(256 * 1024);
    const progress: UploadProgress[] = [];
    const { media } = await alice.c.media.upload(new Blob([bytes]), {
      kind: 'file',
      name: 'notes.bin',
      onProgress: (p) => progress.push(p),
    });
    expect(media).toEqual({
      media_id: expect.any(String),
      kind: 'file',
      mime_type: 'application/octet-stream',
      size: bytes.length,
      file_name: 'notes.bin',
      url: `/app/sdk/media/${media.media_id}`,
      created_at: expect.any(Number),
    });
    // The multipart body is a little larger than the file; the last report is all of it.
    const last = progress[progress.length - 1];
    expect(last.total).toBeGreaterThan(bytes.length);
    expect(last.loaded).toBe(last.total);
    expect(progress.every((p, i) => i === 0 || p.loaded >= progress[i - 1].loaded)).toBe(true);

    const downloaded = await alice.c.media.download(media.media_id);
    expect(Buffer.from(await downloaded.arrayBuffer()).equals(bytes)).toBe(true);
    // Access follows the messages: another user who was sent nothing gets 1207.
    const bob = await sdkUser(app);
    expect(await refusal(bob.c.media.download(media.media_id))).toEqual(REFUSED(1207));
  });

  it('rejects with kind aborted when the signal aborts before or during the upload; the next upload works', async () => {
    const alice = await sdkUser(app);
    const before = await refusal(
      alice.c.media.upload(new Blob([randomBytes(1024)]), { kind: 'file', signal: AbortSignal.abort() }),
    );
    expect(before).toEqual({ kind: 'aborted', code: 0 });

    const controller = new AbortController();
    const during = alice.c.media.upload(new Blob([randomBytes(4 * 1024 * 1024)]), {
      kind: 'file',
      signal: controller.signal,
      // Aborts once the upload has begun.
      onProgress: () => setTimeout(() => controller.abort(), 0),
    });
    expect(await refusal(during)).toEqual({ kind: 'aborted', code: 0 });

    const { media } = await alice.c.media.upload(new Blob([randomBytes(10)]), { kind: 'file' });
    expect(media.size).toBe(10);
  });

  it("uses the environment's upload: its progress reaches the app, and an abort while it runs rejects the upload", async () => {
    const user = await issueUser(app.t);
    const seen: UploadRequest[] = [];
    let hold: Promise<void> | null = null;
    const upload = async (request: UploadRequest): Promise<UploadResponse> => {
      seen.push(request);
      request.onProgress?.({ loaded: 0, total: 100 });
      const response = await fetch(request.url, { method: 'POST', headers: request.headers, body: request.body });
      const text = await response.text();
      if (hold) await hold;
      request.onProgress?.({ loaded: 100, total: 100 });
      return { status: response.status, text };
    };
    const c = createClient({
      baseUrl: app.base,
      authProvider: hostProvider(app.t, () => user.userId).fn,
      environment: { ...testEnvironment(), upload },
    });
    app.clients.push(c);
    await c.login();
    await until(() => c.connected, 'the real-time connection');

    const progress: UploadProgress[] = [];
    const { media } = await c.media.upload(new Blob([randomBytes(64)]), {
      kind: 'file',
      onProgress: (p) => progress.push(p),
    });
    expect(media.size).toBe(64);
    expect(progress).toEqual([
      { loaded: 0, total: 100 },
      { loaded: 100, total: 100 },
    ]);
    expect(seen[0]).toMatchObject({
      url: `${app.base}/app/sdk/media/upload`,
      headers: { Authorization: expect.stringMatching(/^Bearer /) },
    });

    // The environment holds its reply; the app aborts meanwhile.
    hold = new Promise<void>(() => undefined);
    const controller = new AbortController();
    const held = c.media.upload(new Blob([randomBytes(64)]), { kind: 'file', signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    expect(await refusal(held)).toEqual({ kind: 'aborted', code: 0 });
  });
});
