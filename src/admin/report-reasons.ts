import type { REASON_CODES } from '../reports/dto/create-report.dto';

/**
 * The names of a report's reason_code (service spec 4.3). The console's labels and its reason
 * filter are generated from this list (served as /admin/assets/js/report-reasons.js), so the
 * names live here only; the type keeps it in step with the codes the SDK may send.
 */
export const REPORT_REASON_NAMES: Readonly<Record<(typeof REASON_CODES)[number], string>> = {
  1: 'harassment',
  2: 'inappropriate content',
  3: 'fraud',
  4: 'infringement',
  5: 'impersonation',
  6: 'other violation',
  7: 'chat content violation',
  8: 'profile violation',
};

/** The spec's name of a reason code; a code without one (none is accepted today) is named by its number. */
export function reportReasonName(code: number): string {
  return (REPORT_REASON_NAMES as Record<number, string>)[code] ?? `reason ${code}`;
}
