/**
 * The wire contract: every reply body of the SDK endpoints (`/app/sdk/*`, as `data` in the
 * `{code, msg, data}` envelope) and every real-time event payload, as plain types. No framework
 * imports: the server's reply classes are checked against these (test/contract), and the Web
 * SDK and the tests import them instead of keeping copies.
 */
export type * from './before-send.js';
export type * from './calls.js';
export type * from './common.js';
export type * from './conversations.js';
export type * from './friends.js';
export type * from './groups.js';
export type * from './host-app.js';
export type * from './media.js';
export type * from './messages.js';
export type * from './push.js';
export type * from './reports.js';
export type * from './requests.js';
export type * from './server-api.js';
export type * from './server-users.js';
export type * from './sync.js';
export type * from './users.js';
export type * from './webhooks.js';
export type * from './events.js';
