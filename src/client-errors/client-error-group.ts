import type { Severity } from './client-error-group-key';

/** Client errors of one (error code, platform, build), as the admin console reads them. */
export interface ClientErrorGroup {
  errorCode: string;
  platform: string;
  /** null for no build (reported as null or ""). */
  buildId: string | null;
  /** The most severe severity reported in the group. */
  severity: Severity;
  occurrenceCount: number;
  userCount: number;
  deviceCount: number;
  firstSeenAt: number;
  lastSeenAt: number;
  /** Of the most recent report; scrubbed. */
  lastMessage: string;
}

export interface ClientErrorGroupRef {
  errorCode: string;
  platform: string;
  buildId: string | null;
}

export type ClientErrorGroupSort = 'last_seen' | 'occurrences' | 'users';

export interface ClientErrorGroupFilters {
  platform?: string;
  buildId?: string;
  errorCode?: string;
  severity?: Severity;
  from?: number;
  to?: number;
}

/** A group's occurrences per bucket: hour (or day) start in Unix ms → count. */
export interface ClientErrorGroupTrend {
  hours: Map<number, number>;
  days: Map<number, number>;
}
