import { readInteger } from './env-values';

/** Audio/video calls. */
export interface CallsConfig {
  /**
   * How long a call rings without an answer before it ends as `no_answer`. The lower bound
   * leaves a callee time to reach the phone; the upper keeps a forgotten call from holding
   * the callee's line (a live call answers every other caller `busy`).
   */
  ringTimeoutSeconds: number;
  /** Largest group call, caller included: starting one for more answers 1213. */
  maxParticipants: number;
}

export const DEFAULT_CALL_RING_TIMEOUT_SECONDS = 30;

export function loadCallsConfig(env: NodeJS.ProcessEnv, problems: string[]): CallsConfig {
  return {
    ringTimeoutSeconds: readInteger(
      env,
      'CALL_RING_TIMEOUT_SECONDS',
      DEFAULT_CALL_RING_TIMEOUT_SECONDS,
      5,
      180,
      problems,
    ),
    maxParticipants: readInteger(env, 'CALL_MAX_PARTICIPANTS', 16, 2, 300, problems),
  };
}
