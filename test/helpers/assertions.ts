// Assertions shared by the e2e specs: the envelope of spec 4 and what the outbox holds.
import type { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { isDeliveredTo } from './outbox';
import type { TestApp } from './test-app';
import type { Body, Msg } from './api-types';

/** Anything with the parts of a reply the envelope checks read. */
export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string> | Response['headers'];
}

/**
 * A success: HTTP 200, code 0, msg ok, Cache-Control: no-store (spec 4: every reply); returns
 * data. The whole body shows on mismatch.
 */
export function expectOk<T = Body>(response: Reply): T {
  const body = response.body as { code?: number; msg?: string; data?: unknown } | undefined;
  expect({ status: response.status, code: body?.code, body }).toMatchObject({ status: 200, code: 0 });
  expect(body?.msg).toBe('ok');
  if (response.headers)
    expect({ cacheControl: response.headers['cache-control'] }).toEqual({ cacheControl: 'no-store' });
  return body?.data as T;
}

/**
 * A business failure: HTTP 200, exactly {code, msg, data: null} with the code (or one of the
 * codes), and Cache-Control: no-store when the reply's headers are given (spec 4: every reply).
 * `fields` are names msg must mention (at least one of them), or a pattern msg must match.
 */
export function expectFail(response: Reply, code: number | number[], fields?: string | string[] | RegExp): void {
  const body = (response.body ?? {}) as Body;
  const codes = Array.isArray(code) ? code : [code];
  const data = body.data === null ? null : `non-null data: ${JSON.stringify(body.data)?.slice(0, 300)}`;
  const gotCode = codes.includes(body.code as number) ? 'expected' : body.code;
  expect({ status: response.status, code: gotCode, msg: body.msg, data, keys: Object.keys(body).sort() }).toEqual({
    status: 200,
    code: 'expected',
    msg: expect.any(String),
    data: null,
    keys: ['code', 'data', 'msg'],
  });
  if (response.headers)
    expect({ cacheControl: response.headers['cache-control'] }).toEqual({ cacheControl: 'no-store' });
  if (fields instanceof RegExp) {
    expect(String(body.msg)).toMatch(fields);
  } else if (fields) {
    const list = Array.isArray(fields) ? fields : [fields];
    const named = list.some((f) => String(body.msg).includes(f));
    expect({ fields: list, msg: body.msg, named }).toEqual({ fields: list, msg: body.msg, named: true });
  }
}

export const seqs = (messages: Msg[]): number[] => messages.map((m) => Number(m.conversation_seq));

/** from..to inclusive; empty when to < from. */
export const range = (from: number, to: number): number[] =>
  to < from ? [] : Array.from({ length: to - from + 1 }, (_, i) => from + i);

// The outbox has no endpoint: these read what it stored.

/** An outbox event as stored: its type, shared payload and recipients (internal user ID → private payload, or null). */
export interface StoredEvent {
  type: string;
  payload: Body;
  recipients: Map<string, Body | null>;
}

/**
 * The stored event of a reply's event_id, read with its recipient rows; fails unless it exists
 * and names at least one recipient (every event but a group message's does).
 */
export async function storedEvent(t: TestApp, eventId: unknown): Promise<StoredEvent> {
  expect(typeof eventId).toBe('string');
  const rows: Array<{ type: string; payload: string; user_id: string | number; private_payload: string | null }> =
    await t.app
      .get(DataSource)
      .query(
        'SELECT e.type, e.payload, r.user_id, r.private_payload FROM outbox_events e JOIN outbox_recipients r ON r.event_row_id = e.id WHERE e.event_id = ?',
        [eventId],
      );
  expect({ eventId, recipientRows: rows.length > 0 }).toEqual({ eventId, recipientRows: true });
  return {
    type: rows[0].type,
    payload: JSON.parse(rows[0].payload) as Body,
    recipients: new Map(
      rows.map((row) => [String(row.user_id), row.private_payload ? (JSON.parse(row.private_payload) as Body) : null]),
    ),
  };
}

/** The internal IDs of an event's recipients, sorted. */
export const recipientIds = (event: StoredEvent): string[] => [...event.recipients.keys()].sort();

/** The event_id of a reply names exactly one outbox row, of this type. */
export async function expectEventType(t: TestApp, eventId: unknown, type: string): Promise<void> {
  expect(typeof eventId).toBe('string');
  const rows: { type: string }[] = await t.app
    .get(DataSource)
    .query('SELECT type FROM outbox_events WHERE event_id = ?', [eventId]);
  expect(rows.map((r) => r.type)).toEqual([type]);
}

/** The outbox row ID of an event_id (the event must exist). */
export async function outboxRowId(t: TestApp, eventId: string): Promise<string | number> {
  const rows: { id: string | number }[] = await t.app
    .get(DataSource)
    .query('SELECT id FROM outbox_events WHERE event_id = ?', [eventId]);
  return rows[0].id;
}

/** The reply's event_id is stored once and delivered to (at least) `recipients` and never to `excluded`. */
export async function expectDelivered(
  t: TestApp,
  eventId: string | null | undefined,
  recipients: { id: string }[],
  excluded: { id: string }[] = [],
): Promise<void> {
  expect(typeof eventId).toBe('string');
  const rows: { id: string | number }[] = await t.app
    .get(DataSource)
    .query('SELECT id FROM outbox_events WHERE event_id = ?', [eventId]);
  expect({ eventId, rows: rows.length }).toEqual({ eventId, rows: 1 });
  for (const r of recipients)
    expect({ recipient: r.id, delivered: await isDeliveredTo(t, rows[0].id, r.id) }).toEqual({
      recipient: r.id,
      delivered: true,
    });
  for (const e of excluded)
    expect({ excluded: e.id, delivered: await isDeliveredTo(t, rows[0].id, e.id) }).toEqual({
      excluded: e.id,
      delivered: false,
    });
}

/** How many stored events of `type` name the group `groupId` (public) in their payload. */
export async function groupEventCount(t: TestApp, type: string, groupId: string): Promise<number> {
  const rows: { payload: string }[] = await t.app
    .get(DataSource)
    .query('SELECT payload FROM outbox_events WHERE type = ?', [type]);
  return rows.filter((e) => (JSON.parse(e.payload) as Body).group_id === groupId).length;
}

/** How many outbox deliveries these users have (other spec files may write events concurrently, so compare before/after). */
export async function outboxDeliveryCount(t: TestApp, users: { id: string }[]): Promise<number> {
  const rows: { n: number | string }[] = await t.app.get(DataSource).query(
    `SELECT COUNT(*) AS n FROM outbox_recipients WHERE user_id IN (${users.map(() => '?').join(', ')})`,
    users.map((u) => u.id),
  );
  return Number(rows[0].n);
}

// The one-to-one unread aggregate is stored per user and has no endpoint of its own.

export interface StoredTotals {
  total: number;
  unmuted: number;
}

/**
 * A user's stored user_unread_totals row (null when missing) and the sums it stands for over
 * their one-to-one member rows, read straight from the database.
 */
export async function directTotals(
  db: DataSource,
  userId: string,
): Promise<{ stored: StoredTotals | null; sums: StoredTotals }> {
  const [stored] = (await db.query(
    'SELECT direct_unread, direct_unread_unmuted FROM user_unread_totals WHERE user_id = ?',
    [userId],
  )) as Array<Record<string, string | number>>;
  const [sums] = (await db.query(
    'SELECT COALESCE(SUM(unread_count), 0) AS total, COALESCE(SUM(CASE WHEN muted = 0 THEN unread_count ELSE 0 END), 0) AS unmuted FROM conversation_members WHERE user_id = ? AND is_group = 0',
    [userId],
  )) as Array<Record<string, string | number>>;
  return {
    stored: stored ? { total: Number(stored.direct_unread), unmuted: Number(stored.direct_unread_unmuted) } : null,
    sums: { total: Number(sums.total), unmuted: Number(sums.unmuted) },
  };
}
