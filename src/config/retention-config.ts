import { readInteger } from './env-values';

/** How long operational records are kept, and how the pruning job runs. A 0 in days keeps for ever. */
export interface RetentionConfig {
  /** Client errors, counted from their last occurrence. */
  clientErrorsDays: number;
  /** Room-callback events, counted from their receipt. */
  roomEventsDays: number;
  /** Rows kept only to recognise retries (client error event_ids), counted from their first use. */
  idempotencyDays: number;
  /** Mean time between two pruning runs of one instance; each wait is jittered by ±25 %. */
  intervalSeconds: number;
  /** Rows deleted per statement. */
  batchSize: number;
}

const TEN_YEARS_IN_DAYS = 3650;

export function loadRetentionConfig(env: NodeJS.ProcessEnv, problems: string[]): RetentionConfig {
  return {
    clientErrorsDays: readInteger(env, 'RETENTION_CLIENT_ERRORS_DAYS', 30, 0, TEN_YEARS_IN_DAYS, problems),
    roomEventsDays: readInteger(env, 'RETENTION_ROOM_EVENTS_DAYS', 30, 0, TEN_YEARS_IN_DAYS, problems),
    idempotencyDays: readInteger(env, 'RETENTION_IDEMPOTENCY_DAYS', 7, 0, TEN_YEARS_IN_DAYS, problems),
    intervalSeconds: readInteger(env, 'RETENTION_INTERVAL_SECONDS', 600, 10, 24 * 3600, problems),
    batchSize: readInteger(env, 'RETENTION_BATCH_SIZE', 500, 1, 10_000, problems),
  };
}
