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

/**
 * `report.created`: a user reported a user or a group. Host-only: appended with no recipients,
 * so no client receives it; webhooks deliver it.
 */
export interface ReportCreatedEvent {
  report: {
    /** The reporter's idempotency key, unique per reporter. */
    request_id: string;
    reporter_id: string;
    target_type: 'user' | 'group';
    /** The reported user's ID or the group's ID. */
    target_id: string;
    /** The spec's reason code (1 harassment ... 8 profile violation). */
    reason_code: number;
    description: string;
    /** The conversation of the evidence, as the reporter names it; null without evidence. */
    conversation_id: string | null;
    message_ids: string[];
    created_at: number;
  };
}
