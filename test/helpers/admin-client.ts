// A client for the admin console API (/app/admin/*): logs in through the real endpoint and
// sends the session cookie and the CSRF header on every call.
import type { Response } from 'supertest';
import { AdminAccountsService } from '../../src/admin/admin-accounts.service';
import type { AdminRole } from '../../src/admin/admin.entities';
import type { TestApp } from './test-app';

export const ADMIN_PASSWORD = 'correct horse battery staple';
export const CSRF: [string, string] = ['X-Admin-CSRF', '1'];

export interface AdminSession {
  username: string;
  role: AdminRole;
  cookie: string;
  get(path: string, query?: Record<string, string>): Promise<Response>;
  post(path: string, body?: object): Promise<Response>;
}

let counter = 0;
export function adminName(prefix = 'adm'): string {
  counter += 1;
  return `${prefix}${process.pid}x${counter}x${Math.floor(Math.random() * 1e6)}`;
}

/** Creates an account directly (as the CLI does). */
export async function createAdmin(
  t: TestApp,
  role: AdminRole,
  username = adminName(role.slice(0, 3)),
): Promise<string> {
  await t.app.get(AdminAccountsService).create(null, { username, password: ADMIN_PASSWORD, role });
  return username;
}

/** The session ID set by a login reply. */
export function sessionCookie(response: Response): string {
  const header = ([] as string[]).concat(response.headers['set-cookie'] ?? []);
  const cookie = header.find((c) => c.startsWith('ADMIN_SID='));
  if (!cookie) throw new Error(`no ADMIN_SID cookie: ${JSON.stringify(response.body)}`);
  return cookie.split(';')[0];
}

export function login(t: TestApp, username: string, password = ADMIN_PASSWORD, cookie?: string): Promise<Response> {
  const request = t.http
    .post('/app/admin/auth/login')
    .set(...CSRF)
    .send({ username, password });
  return cookie ? request.set('Cookie', cookie) : request;
}

export function sessionFor(t: TestApp, username: string, role: AdminRole, cookie: string): AdminSession {
  return {
    username,
    role,
    cookie,
    get: (path, query = {}) => t.http.get(path).set('Cookie', cookie).query(query),
    post: (path, body = {}) =>
      t.http
        .post(path)
        .set('Cookie', cookie)
        .set(...CSRF)
        .send(body),
  };
}

/** A new account of `role`, logged in. */
export async function adminSession(t: TestApp, role: AdminRole): Promise<AdminSession> {
  const username = await createAdmin(t, role);
  const response = await login(t, username);
  if (response.body.code !== 0) throw new Error(`admin login failed: ${JSON.stringify(response.body)}`);
  return sessionFor(t, username, role, sessionCookie(response));
}
