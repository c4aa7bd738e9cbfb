import { AuthSession } from './auth-session.js';
import type { UploadRequest, UploadResponse } from './environment.js';
import { ImError } from './errors.js';
import { HttpClient } from './http.js';
import type { XhrLike } from './upload.js';

const jwt = (claims: object) => ['e30', Buffer.from(JSON.stringify(claims)).toString('base64url'), 'c2ln'].join('.');
const EXP = 2000000000;

/** A logged-in session whose provider answers a new token each time (`tokens` lists them). */
async function loggedIn() {
  const tokens: string[] = [];
  const session = new AuthSession({
    provider: async () => {
      const token = jwt({ user_id: 'u_1', exp: EXP, n: tokens.length });
      tokens.push(token);
      return { user: { user_id: 'u_1', nickname: 'One' }, token, expire_at: EXP };
    },
    renewAheadMs: 60_000,
    now: () => 1_000_000_000_000,
    onIdentityChanged: () => undefined,
    onRenewed: () => undefined,
  });
  await session.login();
  return { session, tokens };
}

const envelope = (code: number, data: unknown = null) => JSON.stringify({ code, msg: code ? 'no' : 'ok', data });

/** A fake XMLHttpRequest: each instance is recorded; the test drives its progress and its answer. */
class FakeXhr implements XhrLike {
  static made: FakeXhr[] = [];
  method = '';
  url = '';
  headers: Record<string, string> = {};
  body: FormData | null = null;
  aborted = false;
  status = 0;
  responseText = '';
  upload: XhrLike['upload'] = { onprogress: null, onload: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  ontimeout: (() => void) | null = null;

  constructor() {
    FakeXhr.made.push(this);
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  send(body: FormData) {
    this.body = body;
  }
  abort() {
    this.aborted = true;
    this.onabort?.();
  }
  progress(loaded: number, total: number) {
    this.upload.onprogress?.({ loaded, total, lengthComputable: true });
  }
  answer(text: string, status = 200) {
    this.upload.onload?.({ loaded: 100, total: 100, lengthComputable: true });
    this.status = status;
    this.responseText = text;
    this.onload?.();
  }
}

/** The next XHR the client makes (it makes it after an await, so poll). */
async function nextXhr(count: number): Promise<FakeXhr> {
  for (let i = 0; i < 1000 && FakeXhr.made.length < count; i++) await new Promise((r) => setTimeout(r, 5));
  const xhr = FakeXhr.made[count - 1];
  if (!xhr) throw new Error(`no XMLHttpRequest #${count}`);
  return xhr;
}

async function failure(promise: Promise<unknown>): Promise<ImError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ImError)) throw new Error(`expected an ImError, got ${String(error)}`);
  return error;
}

const form = () => {
  const f = new FormData();
  f.append('kind', 'file');
  f.append('file', new Blob([new Uint8Array(64)]), 'a.bin');
  return f;
};
const noFetch = (() => Promise.reject(new Error('fetch must not be used'))) as unknown as typeof fetch;
const scope = globalThis as { XMLHttpRequest?: unknown };

describe('HttpClient.upload over XMLHttpRequest', () => {
  beforeEach(() => {
    FakeXhr.made = [];
    scope.XMLHttpRequest = FakeXhr;
  });
  afterEach(() => delete scope.XMLHttpRequest);

  it('sends the form with the IM token, reports progress up to the total, and answers the data', async () => {
    const { session, tokens } = await loggedIn();
    const http = new HttpClient('https://im.test', session, noFetch);
    const progress: Array<{ loaded: number; total: number }> = [];
    const body = form();
    const reply = http.upload<{ media: { media_id: string } }>('/app/sdk/media/upload', body, {
      onProgress: (p) => progress.push(p),
    });
    const xhr = await nextXhr(1);
    expect({ method: xhr.method, url: xhr.url, body: xhr.body }).toEqual({
      method: 'POST',
      url: 'https://im.test/app/sdk/media/upload',
      body,
    });
    expect(xhr.headers).toEqual({ Authorization: `Bearer ${tokens[0]}`, Accept: 'application/json' });
    xhr.progress(40, 100);
    xhr.answer(envelope(0, { media: { media_id: 'm1' } }));
    expect(await reply).toEqual({ media: { media_id: 'm1' } });
    expect(progress).toEqual([
      { loaded: 40, total: 100 },
      { loaded: 100, total: 100 },
    ]);
  });

  it('aborts the request when the signal aborts, and rejects with kind aborted', async () => {
    const { session } = await loggedIn();
    const http = new HttpClient('https://im.test', session, noFetch);
    const controller = new AbortController();
    const reply = http.upload('/app/sdk/media/upload', form(), { signal: controller.signal });
    const xhr = await nextXhr(1);
    xhr.progress(10, 100);
    controller.abort();
    const error = await failure(reply);
    expect({ kind: error.kind, code: error.code }).toEqual({ kind: 'aborted', code: 0 });
    expect(xhr.aborted).toBe(true);
  });

  it('never starts when the signal has already aborted', async () => {
    const { session } = await loggedIn();
    const http = new HttpClient('https://im.test', session, noFetch);
    const error = await failure(http.upload('/x', form(), { signal: AbortSignal.abort() }));
    expect(error.kind).toBe('aborted');
    expect(FakeXhr.made).toHaveLength(0);
  });

  it('renews once on 1102 and sends the body again with the new token', async () => {
    const { session, tokens } = await loggedIn();
    const http = new HttpClient('https://im.test', session, noFetch);
    const reply = http.upload<{ ok: number }>('/app/sdk/media/upload', form());
    (await nextXhr(1)).answer(envelope(1102));
    const second = await nextXhr(2);
    expect(tokens).toHaveLength(2);
    expect(second.headers.Authorization).toBe(`Bearer ${tokens[1]}`);
    second.answer(envelope(0, { ok: 1 }));
    expect(await reply).toEqual({ ok: 1 });
  });

  it('gives kind auth when the renewed token is refused too', async () => {
    const { session } = await loggedIn();
    const http = new HttpClient('https://im.test', session, noFetch);
    const reply = http.upload('/x', form());
    (await nextXhr(1)).answer(envelope(1103));
    (await nextXhr(2)).answer(envelope(1102));
    const error = await failure(reply);
    expect({ kind: error.kind, code: error.code }).toEqual({ kind: 'auth', code: 1102 });
    expect(FakeXhr.made).toHaveLength(2);
  });

  it('waits after 1005 and sends again; an abort during the wait rejects at once', async () => {
    const { session } = await loggedIn();
    const http = new HttpClient('https://im.test', session, noFetch);
    const retried = http.upload<{ ok: number }>('/x', form());
    (await nextXhr(1)).answer(envelope(1005));
    (await nextXhr(2)).answer(envelope(0, { ok: 2 }));
    expect(await retried).toEqual({ ok: 2 });

    const controller = new AbortController();
    const waiting = http.upload('/x', form(), { signal: controller.signal });
    (await nextXhr(3)).answer(envelope(1005));
    controller.abort();
    expect((await failure(waiting)).kind).toBe('aborted');
    await new Promise((r) => setTimeout(r, 50));
    expect(FakeXhr.made).toHaveLength(3);
  });

  it('drops the reply of an earlier login (kind stale)', async () => {
    const { session } = await loggedIn();
    const http = new HttpClient('https://im.test', session, noFetch);
    const reply = http.upload('/x', form());
    const xhr = await nextXhr(1);
    session.stop();
    xhr.answer(envelope(0, { media: {} }));
    expect((await failure(reply)).kind).toBe('stale');
  });

  it('types a business refusal by code, and a network failure as kind network', async () => {
    const { session } = await loggedIn();
    const http = new HttpClient('https://im.test', session, noFetch);
    const refused = http.upload('/x', form());
    (await nextXhr(1)).answer(envelope(1004));
    expect(await failure(refused)).toMatchObject({ kind: 'rejected', code: 1004, httpStatus: 200 });
    const lost = http.upload('/x', form());
    (await nextXhr(2)).onerror?.();
    expect(await failure(lost)).toMatchObject({ kind: 'network', code: 0 });
    const broken = http.upload('/x', form());
    (await nextXhr(3)).answer('<html>', 502);
    expect(await failure(broken)).toMatchObject({ kind: 'server', code: 0, httpStatus: 502 });
  });
});

describe('HttpClient.upload through the environment or fetch', () => {
  it("uses the environment's upload (not XMLHttpRequest) and passes progress and signal through", async () => {
    scope.XMLHttpRequest = FakeXhr;
    FakeXhr.made = [];
    try {
      const { session, tokens } = await loggedIn();
      const seen: UploadRequest[] = [];
      const upload = async (request: UploadRequest): Promise<UploadResponse> => {
        seen.push(request);
        request.onProgress?.({ loaded: 7, total: 7 });
        return { status: 200, text: envelope(0, { via: 'environment' }) };
      };
      const http = new HttpClient('https://im.test', session, noFetch, { upload });
      const progress: unknown[] = [];
      const signal = new AbortController().signal;
      const body = form();
      expect(await http.upload('/app/sdk/media/upload', body, { onProgress: (p) => progress.push(p), signal })).toEqual(
        { via: 'environment' },
      );
      expect(seen).toEqual([
        expect.objectContaining({
          url: 'https://im.test/app/sdk/media/upload',
          headers: { Authorization: `Bearer ${tokens[0]}`, Accept: 'application/json' },
          body,
          signal,
        }),
      ]);
      expect(progress).toEqual([{ loaded: 7, total: 7 }]);
      expect(FakeXhr.made).toHaveLength(0);
    } finally {
      delete scope.XMLHttpRequest;
    }
  });

  it('rejects with kind aborted even when the environment ignores the signal', async () => {
    const { session } = await loggedIn();
    const upload = () => new Promise<UploadResponse>(() => undefined);
    const http = new HttpClient('https://im.test', session, noFetch, { upload });
    const controller = new AbortController();
    const reply = http.upload('/x', form(), { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    expect((await failure(reply)).kind).toBe('aborted');
  });

  it('falls back to fetch without XMLHttpRequest: progress at the start and at the end, of the encoded size', async () => {
    const { session } = await loggedIn();
    const sent: Array<{ type: string; size: number }> = [];
    const fetchImpl = (async (_url: unknown, init: RequestInit) => {
      const body = init.body as Blob;
      sent.push({ type: (init.headers as Record<string, string>)['Content-Type'], size: body.size });
      return new Response(envelope(0, { via: 'fetch' }), { headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    const http = new HttpClient('https://im.test', session, fetchImpl);
    const progress: Array<{ loaded: number; total: number }> = [];
    expect(await http.upload('/x', form(), { onProgress: (p) => progress.push(p) })).toEqual({ via: 'fetch' });
    const size = sent[0].size;
    expect(sent[0].type).toMatch(/^multipart\/form-data; ?boundary=/);
    expect(size).toBeGreaterThan(64);
    expect(progress).toEqual([
      { loaded: 0, total: size },
      { loaded: size, total: size },
    ]);
  });
});
