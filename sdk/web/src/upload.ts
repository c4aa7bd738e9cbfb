// The default ways to send a multipart upload when the environment brings none: XMLHttpRequest
// where it exists (browsers: the only API with upload progress), fetch elsewhere (Node).
import type { UploadRequest, UploadResponse } from './environment.js';
import { ImError } from './errors.js';

/** Sends one upload and answers the raw reply. */
export type UploadSender = (request: UploadRequest) => Promise<UploadResponse>;

/** The part of XMLHttpRequest an upload uses. */
export interface XhrLike {
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  send(body: FormData): void;
  abort(): void;
  readonly status: number;
  readonly responseText: string;
  readonly upload: {
    onprogress: ((event: ProgressLike) => void) | null;
    onload: ((event: ProgressLike) => void) | null;
  };
  onload: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
  ontimeout: (() => void) | null;
}

interface ProgressLike {
  loaded: number;
  total: number;
  lengthComputable: boolean;
}

export const abortedError = (): ImError => new ImError('aborted', 0, 'the upload was aborted');

/** XMLHttpRequest as this environment has it, looked up per upload (a test may install one). */
export function xhrConstructor(): (new () => XhrLike) | undefined {
  return (globalThis as { XMLHttpRequest?: new () => XhrLike }).XMLHttpRequest;
}

/** An upload over XMLHttpRequest, with `upload.onprogress` reported and the signal aborting it. */
export function xhrUpload(Xhr: new () => XhrLike): UploadSender {
  return (request) =>
    new Promise<UploadResponse>((resolve, reject) => {
      const signal = request.signal;
      if (signal?.aborted) return reject(abortedError());
      const xhr = new Xhr();
      const onAbort = () => xhr.abort();
      const settle = (outcome: () => void) => {
        signal?.removeEventListener('abort', onAbort);
        outcome();
      };
      xhr.open('POST', request.url);
      for (const [name, value] of Object.entries(request.headers)) xhr.setRequestHeader(name, value);
      const report = request.onProgress;
      if (report) {
        const toProgress = (event: ProgressLike) =>
          report({ loaded: event.loaded, total: event.lengthComputable ? event.total : 0 });
        xhr.upload.onprogress = toProgress;
        // The body is sent in full: the last report says so even when no progress event said it.
        xhr.upload.onload = (event) =>
          report({
            loaded: event.lengthComputable ? event.total : event.loaded,
            total: event.lengthComputable ? event.total : 0,
          });
      }
      xhr.onload = () => settle(() => resolve({ status: xhr.status, text: xhr.responseText }));
      xhr.onerror = () => settle(() => reject(new TypeError('the upload failed on the network')));
      xhr.ontimeout = () => settle(() => reject(new TypeError('the upload timed out')));
      xhr.onabort = () => settle(() => reject(abortedError()));
      signal?.addEventListener('abort', onAbort);
      xhr.send(request.body);
    });
}

/**
 * An upload over fetch, which reports no progress while sending: with `onProgress` the body is
 * encoded first, so that the start (0 of its size) and the end (all of it, when the reply comes)
 * carry its real size.
 */
export function fetchUpload(fetchImpl: typeof fetch): UploadSender {
  return async (request) => {
    const report = request.onProgress;
    let body: FormData | Blob = request.body;
    const headers = { ...request.headers };
    if (report && typeof Response === 'function') {
      const encoded = await new Response(request.body).blob();
      body = encoded;
      // The encoded body's type carries the multipart boundary.
      headers['Content-Type'] = encoded.type;
      report({ loaded: 0, total: encoded.size });
    }
    const response = await fetchImpl(request.url, { method: 'POST', headers, body, signal: request.signal });
    const text = await response.text();
    if (report && body instanceof Blob) report({ loaded: body.size, total: body.size });
    return { status: response.status, text };
  };
}

/**
 * `attempt`, rejected with kind `aborted` as soon as `signal` aborts, whether or not the sender
 * honours the signal itself.
 */
export function abortable<T>(attempt: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return attempt;
  if (signal.aborted) {
    attempt.catch(() => undefined);
    return Promise.reject(abortedError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortedError());
    signal.addEventListener('abort', onAbort, { once: true });
    attempt.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Waits `ms`, or rejects with kind `aborted` when `signal` aborts first. */
export function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortedError());
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
