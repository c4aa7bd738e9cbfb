import { readChoice, readInteger } from './env-values';

/** Analytics (src/analytics): the rollup job and the in-memory counters' flushes. */
export interface AnalyticsConfig {
  /** Whether this instance takes part in the rollup job (one instance at a time runs it, by lease). */
  job: boolean;
  /** How often the job runs (and samples the connection count), ms. */
  intervalMs: number;
  /** How often activity and request counts kept in memory are written, ms. */
  flushMs: number;
  /**
   * How old a message or a call's end must be before the job rolls it up, ms: a transaction
   * that took a lower ID commits within this time, so the cursor never passes a row not yet visible.
   */
  settleMs: number;
}

export function loadAnalyticsConfig(env: NodeJS.ProcessEnv, problems: string[]): AnalyticsConfig {
  return {
    job: readChoice(env, 'ANALYTICS_JOB', ['true', 'false'] as const, 'true', problems) === 'true',
    intervalMs: readInteger(env, 'ANALYTICS_INTERVAL_SECONDS', 60, 1, 3_600, problems) * 1000,
    flushMs: readInteger(env, 'ANALYTICS_FLUSH_MS', 5_000, 100, 60_000, problems),
    settleMs: readInteger(env, 'ANALYTICS_SETTLE_SECONDS', 60, 0, 3_600, problems) * 1000,
  };
}
