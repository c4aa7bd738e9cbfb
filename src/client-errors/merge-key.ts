import { createHash } from 'node:crypto';

export interface MergeFields {
  userId: string;
  deviceId: string;
  platform: string;
  severity: string;
  errorCode: string;
  operation: string;
  buildId: string | null;
}

export const MERGE_WINDOW_MS = 60_000;

/**
 * Similar errors (same user, device, platform, severity, error code, operation and build)
 * in the same clock minute share one key, and so one stored record. JSON encoding keeps
 * null apart from "" and keeps field boundaries unambiguous.
 */
export function mergeKey(fields: MergeFields, receivedAt: number): string {
  const minute = Math.floor(receivedAt / MERGE_WINDOW_MS);
  const material = JSON.stringify([
    fields.userId,
    fields.deviceId,
    fields.platform,
    fields.severity,
    fields.errorCode,
    fields.operation,
    fields.buildId,
    minute,
  ]);
  return createHash('sha256').update(material).digest('hex');
}
