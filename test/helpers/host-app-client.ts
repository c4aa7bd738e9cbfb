// A client for the bundled host application (/app/auth/*): SMS codes read from the dev inbox,
// sign-up and login through the real endpoints, and the PHPSID cookie sent back on every call.
import { randomInt } from 'node:crypto';
import type { Response } from 'supertest';
import type { TestApp } from './test-app';

export const HOST_PASSWORD = 'correct horse battery';
/** A browser page of the service itself: passes the origin check. */
export const SAME_ORIGIN: [string, string] = ['Origin', 'http://im.test'];

export interface HostAccount {
  phone: string;
  cookie: string;
  userId: string;
  get(path: string, query?: Record<string, string>): Promise<Response>;
  post(path: string, body?: object): Promise<Response>;
}

/** A fresh E.164 number in a test range, so specs never share accounts. */
export function randomPhone(): string {
  return `+1555${String(randomInt(0, 10 ** 9)).padStart(9, '0')}`;
}

/** The PHPSID cookie ("PHPSID=<id>") set by a reply. */
export function hostCookie(response: Response): string {
  const header = ([] as string[]).concat(response.headers['set-cookie'] ?? []);
  const cookie = header.find((c) => c.startsWith('PHPSID='));
  if (!cookie) throw new Error(`no PHPSID cookie: ${response.status} ${JSON.stringify(response.body)}`);
  return cookie.split(';')[0];
}

export const sessionIdOf = (cookie: string): string => cookie.slice('PHPSID='.length);

export function sendCode(t: TestApp, phone: string, purpose: string): Promise<Response> {
  return t.http
    .post('/app/auth/sms/send')
    .set(...SAME_ORIGIN)
    .send({ phone, purpose });
}

/** The newest code of `purpose` in the dev inbox. */
export async function inboxCode(t: TestApp, phone: string, purpose: string): Promise<string> {
  const inbox = await t.http.get('/app/auth/dev/sms-inbox').query({ phone });
  const item = (inbox.body.data?.items ?? []).find((entry: { purpose: string }) => entry.purpose === purpose);
  if (!item) throw new Error(`no ${purpose} code for ${phone}: ${JSON.stringify(inbox.body)}`);
  return item.code as string;
}

/** Sends a code and reads it from the inbox. */
export async function freshCode(t: TestApp, phone: string, purpose: string): Promise<string> {
  const sent = await sendCode(t, phone, purpose);
  if (sent.body.code !== 0) throw new Error(`sms/send failed: ${JSON.stringify(sent.body)}`);
  return inboxCode(t, phone, purpose);
}

export function passwordLogin(t: TestApp, phone: string, password = HOST_PASSWORD, cookie?: string): Promise<Response> {
  const request = t.http
    .post('/app/auth/login')
    .set(...SAME_ORIGIN)
    .send({ phone, password });
  return cookie ? request.set('Cookie', cookie) : request;
}

export function accountFor(t: TestApp, phone: string, cookie: string, userId: string): HostAccount {
  return {
    phone,
    cookie,
    userId,
    get: (path, query = {}) => t.http.get(path).set('Cookie', cookie).query(query),
    post: (path, body = {}) =>
      t.http
        .post(path)
        .set('Cookie', cookie)
        .set(...SAME_ORIGIN)
        .send(body),
  };
}

/** A new account, signed up (and so logged in) through the real endpoints. */
export async function signUp(t: TestApp, nickname = 'Host User', phone = randomPhone()): Promise<HostAccount> {
  const code = await freshCode(t, phone, 'signup');
  const response = await t.http
    .post('/app/auth/signup')
    .set(...SAME_ORIGIN)
    .send({ phone, code, password: HOST_PASSWORD, nickname });
  if (response.body.code !== 0) throw new Error(`signup failed: ${JSON.stringify(response.body)}`);
  return accountFor(t, phone, hostCookie(response), response.body.data.account.user_id as string);
}
