import { clientErrorGroupKey, groupBuild, severityRank } from './client-error-group-key';

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

/** One accepted submission as the group rollups see it: its time and the fields of its record. */
export interface RollupSubmission {
  /** Submission id (numeric string): the order in which reports were accepted. */
  id: string;
  at: number;
  errorCode: string;
  platform: string;
  buildId: string | null;
  severity: string;
  userId: string;
  deviceId: string;
  message: string;
}

/** A group's share of a batch: what its row gains. */
export interface GroupDelta {
  groupKey: string;
  errorCode: string;
  platform: string;
  /** '' for no build. */
  build: string;
  severityRank: number;
  occurrences: number;
  firstSeenAt: number;
  lastSeenAt: number;
  /** The message of the batch's latest occurrence (of the last accepted among equal times). */
  lastMessage: string;
}

/** Occurrences of one (group, user) or (group, device); `userId` of a device is its first reporter in the batch. */
export interface IdentityDelta {
  groupKey: string;
  id: string;
  userId: string;
  occurrences: number;
}

export interface BucketDelta {
  groupKey: string;
  bucketStart: number;
  occurrences: number;
}

/** What a batch of submissions adds to the rollups, each list in key order (the order rows are locked in). */
export interface RollupPlan {
  groups: GroupDelta[];
  users: IdentityDelta[];
  devices: IdentityDelta[];
  hours: BucketDelta[];
  days: BucketDelta[];
}

const byKey = <T>(map: Map<string, T>): T[] =>
  [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, value]) => value);

/**
 * Aggregates a batch per group, identity and bucket, so that applying it takes one upsert per
 * table rather than one per submission. The result is what applying the submissions one by one,
 * in id order, would add: counts are sums, severity the highest, times the extremes, and the
 * message that of the latest occurrence, a later submission winning a tie (as the one-by-one
 * upsert's `>=` does).
 */
export function planRollup(submissions: readonly RollupSubmission[]): RollupPlan {
  const ordered = [...submissions].sort((a, b) => Number(BigInt(a.id) - BigInt(b.id)));
  const groups = new Map<string, GroupDelta>();
  const users = new Map<string, IdentityDelta>();
  const devices = new Map<string, IdentityDelta>();
  const hours = new Map<string, BucketDelta>();
  const days = new Map<string, BucketDelta>();
  const count = (map: Map<string, IdentityDelta>, groupKey: string, id: string, userId: string): void => {
    const key = JSON.stringify([groupKey, id]);
    const known = map.get(key);
    if (known) known.occurrences++;
    else map.set(key, { groupKey, id, userId, occurrences: 1 });
  };
  const bucket = (map: Map<string, BucketDelta>, groupKey: string, at: number, size: number): void => {
    const bucketStart = at - (at % size);
    const key = `${groupKey}|${String(bucketStart).padStart(16, '0')}`;
    const known = map.get(key);
    if (known) known.occurrences++;
    else map.set(key, { groupKey, bucketStart, occurrences: 1 });
  };
  for (const s of ordered) {
    const groupKey = clientErrorGroupKey(s.errorCode, s.platform, s.buildId);
    const rank = severityRank(s.severity);
    const group = groups.get(groupKey);
    if (!group)
      groups.set(groupKey, {
        groupKey,
        errorCode: s.errorCode,
        platform: s.platform,
        build: groupBuild(s.buildId),
        severityRank: rank,
        occurrences: 1,
        firstSeenAt: s.at,
        lastSeenAt: s.at,
        lastMessage: s.message,
      });
    else {
      group.occurrences++;
      group.severityRank = Math.max(group.severityRank, rank);
      group.firstSeenAt = Math.min(group.firstSeenAt, s.at);
      if (s.at >= group.lastSeenAt) {
        group.lastSeenAt = s.at;
        group.lastMessage = s.message;
      }
    }
    count(users, groupKey, s.userId, s.userId);
    count(devices, groupKey, s.deviceId, s.userId);
    bucket(hours, groupKey, s.at, HOUR_MS);
    bucket(days, groupKey, s.at, DAY_MS);
  }
  return {
    groups: byKey(groups),
    users: byKey(users),
    devices: byKey(devices),
    hours: byKey(hours),
    days: byKey(days),
  };
}
