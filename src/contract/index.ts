/**
 * The wire contract: every reply body of the SDK endpoints (`/app/sdk/*`, as `data` in the
 * `{code, msg, data}` envelope) and every real-time event payload, as plain types. No framework
 * imports: the server's reply classes are checked against these (test/contract), and the Web
 * SDK and the tests import them instead of keeping copies.
 */
export type * from './calls';
export type * from './common';
export type * from './conversations';
export type * from './friends';
export type * from './groups';
export type * from './media';
export type * from './messages';
export type * from './reports';
export type * from './sync';
export type * from './users';
export * from './events';
