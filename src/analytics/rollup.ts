/** Pure arithmetic of the analytics rollups: UTC buckets and what a batch of rows adds to them. */

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/** MAU counts the users active on this many days ending with the day itself. */
export const MAU_DAYS = 30;

/** Unix ms of the UTC midnight that starts the day of `ms`. */
export function dayOf(ms: number): number {
  return ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
}

/** Unix ms of the start of the UTC hour of `ms`. */
export function hourOf(ms: number): number {
  return ms - (((ms % HOUR_MS) + HOUR_MS) % HOUR_MS);
}

/** One figure added to (or compared with) a bucket: a day or an hour, a metric and a dimension. */
export interface RollupIncrement {
  bucket: number;
  metric: string;
  dimension: string;
  value: number;
}

export interface MessageRow {
  id: string;
  type: string;
  createdAt: number;
}

export interface FinishedCallRow {
  id: string;
  media: string;
  acceptedAt: number | null;
  endedAt: number;
}

/** Sums values that share a bucket, metric and dimension; one increment each, in first-seen order. */
export function mergeIncrements(items: readonly RollupIncrement[]): RollupIncrement[] {
  const merged = new Map<string, RollupIncrement>();
  for (const item of items) {
    const key = `${item.bucket}|${item.metric}|${item.dimension}`;
    const seen = merged.get(key);
    if (seen) seen.value += item.value;
    else merged.set(key, { ...item });
  }
  return [...merged.values()];
}

/**
 * The rows a cursor may move past: the leading run (in ID order) of rows created at or before
 * `settledAt`. A younger row stops the run, so a lower ID still committing is never skipped.
 */
export function settledPrefix<T extends { createdAt: number }>(rows: readonly T[], settledAt: number): T[] {
  const stop = rows.findIndex((row) => row.createdAt > settledAt);
  return stop === -1 ? [...rows] : rows.slice(0, stop);
}

/** Messages per UTC day and type. */
export function messageIncrements(rows: readonly MessageRow[]): RollupIncrement[] {
  return mergeIncrements(
    rows.map((row) => ({ bucket: dayOf(row.createdAt), metric: 'messages', dimension: row.type, value: 1 })),
  );
}

/**
 * Calls per UTC day of their end, by media, and the seconds they were connected (from
 * acceptance to end; a call never accepted counts as a call of 0 seconds).
 */
export function callIncrements(rows: readonly FinishedCallRow[]): RollupIncrement[] {
  const items: RollupIncrement[] = [];
  for (const row of rows) {
    const bucket = dayOf(row.endedAt);
    items.push({ bucket, metric: 'calls', dimension: row.media, value: 1 });
    const seconds = row.acceptedAt === null ? 0 : Math.max(0, Math.round((row.endedAt - row.acceptedAt) / 1000));
    items.push({ bucket, metric: 'call_seconds', dimension: row.media, value: seconds });
  }
  return mergeIncrements(items);
}

/** How an HTTP reply counts toward the API error rate. */
export type RequestOutcome = 'ok' | 'client_error' | 'server_error';

/**
 * A reply with HTTP 5xx is a server error; one with 4xx, or HTTP 200 with an envelope code
 * other than 0 (the API's refusals), is a client error; every other reply is fine.
 */
export function requestOutcome(status: number, code: number | undefined): RequestOutcome {
  if (status >= 500) return 'server_error';
  if (status >= 400 || (code !== undefined && code !== 0)) return 'client_error';
  return 'ok';
}

/** Every bucket start from `from` up to and including `to`, `size` apart. */
export function bucketStarts(from: number, to: number, size: number): number[] {
  const starts: number[] = [];
  for (let at = from; at <= to; at += size) starts.push(at);
  return starts;
}
