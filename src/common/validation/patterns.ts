/** Lowercase UUID version 4 (spec 2.1 for client error `event_id` and `trace_id`). */
export const LOWERCASE_UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** Idempotency keys of reports: 1–64 characters of letters, digits, ".", "_", ":", "-". */
export const REQUEST_ID = /^[A-Za-z0-9._:-]+$/;
