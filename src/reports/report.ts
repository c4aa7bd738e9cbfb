/**
 * An abuse report as other modules (the admin console) see it: a plain record, never the
 * TypeORM entity, which stays inside the reports module.
 */
export type ReportStatus = 'pending' | 'reviewed' | 'closed';
export type ReportTargetType = 'user' | 'group';

export interface Report {
  id: string;
  reporterId: string;
  requestId: string;
  targetType: ReportTargetType;
  /** The target as the reporter named it (external user ID or public group ID). */
  targetPublicId: string;
  targetUserId: string | null;
  targetGroupId: string | null;
  reasonCode: number;
  description: string;
  /** As sent by the reporter (viewer-relative for one-to-one conversations); '' when none. */
  conversationId: string;
  /** Internal ID of that conversation, resolved at submission. */
  conversationRef: string | null;
  /** JSON array of evidence message IDs, sorted ascending. */
  messageIds: string;
  status: ReportStatus;
  createdAt: number;
  updatedAt: number;
}

/** The admin console's queue filters; `from` inclusive, `to` exclusive (Unix ms). */
export interface ReportFilters {
  status?: ReportStatus;
  targetType?: ReportTargetType;
  reasonCode?: number;
  from?: number;
  to?: number;
}

/** The console's reports grouped by target: which reports count, and the order of the groups. */
export type ReportTargetStatus = 'open' | 'all';
export type ReportTargetSort = 'count' | 'latest';

/** Where a page of targets ended: the sort value of its last group, then the target itself. */
export interface ReportTargetPosition {
  value: number;
  targetType: ReportTargetType;
  targetPublicId: string;
}

/** One target's reports, counted over the reports the status filter takes ('open': pending only). */
export interface ReportTargetSummary {
  targetType: ReportTargetType;
  targetPublicId: string;
  reportCount: number;
  /** Pending reports among them. */
  openCount: number;
  reporterCount: number;
  firstReportAt: number;
  lastReportAt: number;
  /** The most frequent reason_code (the lowest code on a tie). */
  topReasonCode: number;
  /** Internal user IDs of the first reporters, by their first report, at most REPORT_TARGET_REPORTERS. */
  firstReporterIds: string[];
}

export const REPORT_TARGET_REPORTERS = 5;
