/** The bundled host application's replies (`/app/auth/*`): the demo's login, through the Web SDK's `createHostAppAuth`. */

/** A host-app account. */
export interface HostAccount {
  /** The IM user ID linked to the account: random, stable, and what other users see. */
  user_id: string;
  /** The account's phone number (E.164); never shown to other users. */
  phone: string;
  /** The current IM nickname. */
  nickname: string;
  /** Unix ms of sign-up. */
  created_at: number;
}

/** `signup`, `login`, `login/sms`, `me`. */
export interface HostMe {
  account: HostAccount;
}

/** `logout`, `password`, `password/reset`. */
export interface HostDone {
  done: boolean;
}

/** `sms/send`: seconds the code stays valid. */
export interface HostSmsSent {
  expires_in: number;
}

/** What a code is for; a code works for its purpose only. */
export type HostSmsPurpose = 'signup' | 'login' | 'reset';

/** `dev/sms-inbox` (development only): the latest codes sent to a number, newest first. */
export interface HostSmsInbox {
  items: Array<{ phone: string; purpose: HostSmsPurpose; code: string; sent_at: number }>;
}
