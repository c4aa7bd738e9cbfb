export type ReportStatus = 'pending' | 'reviewed' | 'closed';

/** `POST /app/sdk/reports/group` and `/user` (spec 4.3 / 4.4). */
export interface ReportReply {
  request_id: string;
  status: ReportStatus;
  /** Unix ms of the original submission. */
  created_at: number;
  /** false when this request_id was already stored (a retry). */
  created: boolean;
}

/** `POST /app/sdk/client-errors`. */
export interface ClientErrorReply {
  /** ID of the stored or merged record; may differ from the submitted one. */
  event_id: string;
  /** Occurrences accumulated in that record. */
  occurrence_count: number;
}
