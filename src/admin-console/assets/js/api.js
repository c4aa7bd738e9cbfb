// The admin API: the session cookie goes with every call (same origin), and every write carries
// X-Admin-CSRF, which a cross-site form cannot send. The service's own `msg` is shown as it
// comes (English, naming the field); only the console's own failures are translated here.
import { t } from './i18n.js';

export class ApiError extends Error {
  constructor(status, code, msg) {
    super(msg);
    this.status = status;
    this.code = code;
  }
}

const listeners = new Set();
/** Called when the session is gone (HTTP 401): the console shows the login again. */
export function onSignedOut(listener) {
  listeners.add(listener);
}

async function call(method, path, { query, body } = {}) {
  const url = new URL(path, location.origin);
  for (const [name, value] of Object.entries(query ?? {}))
    if (value !== undefined && value !== '') url.searchParams.set(name, value);
  const headers = { Accept: 'application/json' };
  if (method === 'POST') {
    headers['Content-Type'] = 'application/json';
    headers['X-Admin-CSRF'] = '1';
  }
  let response;
  try {
    response = await fetch(url, {
      method,
      headers,
      credentials: 'same-origin',
      body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
    });
  } catch {
    throw new ApiError(0, 0, t('common.unreachable'));
  }
  let envelope = null;
  try {
    envelope = await response.json();
  } catch {
    throw new ApiError(response.status, 1500, t('common.unexpected_reply', { status: response.status }));
  }
  if (response.status === 401) for (const listener of listeners) listener();
  if (envelope.code !== 0) throw new ApiError(response.status, envelope.code, envelope.msg);
  return envelope.data;
}

export const api = {
  get: (path, query) => call('GET', `/app/admin/${path}`, { query }),
  post: (path, body) => call('POST', `/app/admin/${path}`, { body }),
};
