// What the SDK namespace scenarios share: a logged-in SDK client per fresh user, and a refusal
// read as the ImError the app would branch on.
import { ImError } from '../../sdk/web/src/index';
import type { ErrorKind, ImClient } from '../../sdk/web/src/index';
import { IssuedUser, issueUser } from '../helpers/test-app';
import { SdkApp, hostProvider, sdkClient, until } from './sdk-harness';

export interface SdkUser extends IssuedUser {
  c: ImClient;
}

/** A fresh user (random ID) with an SDK client logged in through the host's token endpoint. */
export async function sdkUser(app: SdkApp, fields: Record<string, unknown> = {}): Promise<SdkUser> {
  const user = await issueUser(app.t, fields);
  return { ...user, c: await loggedInAs(app, user) };
}

/** An SDK client (a device) of `user`, logged in and connected. */
export async function loggedInAs(app: SdkApp, user: IssuedUser): Promise<ImClient> {
  const { c } = sdkClient(app.base, hostProvider(app.t, () => user.userId).fn, app.clients);
  await c.login();
  // Connected before the test goes on, so that no handshake is still under way at its end.
  await until(() => c.connected, 'the real-time connection');
  return c;
}

/** The ImError a call was refused with; fails the test when it succeeded or failed otherwise. */
export async function refusal(call: Promise<unknown>): Promise<{ kind: ErrorKind; code: number }> {
  const outcome = await call.then(
    (value: unknown) => ({ resolved: value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a refusal, got ${JSON.stringify(outcome.resolved)}`);
  if (!(outcome.error instanceof ImError)) throw new Error(`expected an ImError, got ${String(outcome.error)}`);
  return { kind: outcome.error.kind, code: outcome.error.code };
}

export const REFUSED = (code: number) => ({ kind: 'rejected' as ErrorKind, code });
