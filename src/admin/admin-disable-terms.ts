import type { ReportLink } from './report-link';
import { AppError } from '../common/app-error';

/** A timed disable lasts at least a minute and at most a year; longer is "for good". */
export const MIN_DISABLE_SECONDS = 60;
export const MAX_DISABLE_SECONDS = 31_536_000;
export const MAX_DISABLE_REASON = 200;

/** What the operator asked for when disabling or enabling a user. */
export interface UserStatusChange {
  disabled: boolean;
  /** Absent: for good. */
  durationSeconds?: number;
  /** Shown to the user's client as the 1003 error's `msg`. */
  reason?: string;
  /** The report the disable is taken from (its move commits with the disable). */
  report?: ReportLink;
}

/**
 * The stored end (Unix ms, null for good) and reason of a status change, or 1004 naming the
 * field. Checked here as well as by the DTO: services of the console (acting on a report) call
 * this without a request body.
 */
export function disableTerms(change: UserStatusChange, now: number): { until: number | null; reason: string | null } {
  const { durationSeconds, reason } = change;
  if (!change.disabled) {
    if (durationSeconds !== undefined)
      throw AppError.invalid('duration_seconds', 'only applies when disabling (leave it out to enable)');
    if (reason !== undefined) throw AppError.invalid('reason', 'only applies when disabling (leave it out to enable)');
    return { until: null, reason: null };
  }
  if (durationSeconds !== undefined && !validDuration(durationSeconds))
    throw AppError.invalid(
      'duration_seconds',
      `must be a JSON integer from ${MIN_DISABLE_SECONDS} to ${MAX_DISABLE_SECONDS} (leave it out for good)`,
    );
  return {
    until: durationSeconds === undefined ? null : now + durationSeconds * 1000,
    reason: reason === undefined ? null : checkedReason(reason),
  };
}

function validDuration(value: unknown): boolean {
  return (
    typeof value === 'number' && Number.isInteger(value) && value >= MIN_DISABLE_SECONDS && value <= MAX_DISABLE_SECONDS
  );
}

/** Trimmed; 1 to 200 characters with no control character (it is shown as a one-line message). */
export function checkedReason(value: unknown): string {
  if (typeof value !== 'string') throw AppError.invalid('reason', 'must be a JSON string');
  const trimmed = value.trim();
  if (trimmed.length === 0 || [...trimmed].length > MAX_DISABLE_REASON)
    throw AppError.invalid('reason', `must be 1 to ${MAX_DISABLE_REASON} characters after trimming`);
  if (/\p{Cc}/u.test(trimmed)) throw AppError.invalid('reason', 'must not contain control characters');
  return trimmed;
}
