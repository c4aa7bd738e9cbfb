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
