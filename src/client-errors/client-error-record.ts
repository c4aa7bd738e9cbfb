/**
 * A stored client error as other modules (the admin console) read it: similar reports of one
 * minute merged into one record, text fields already scrubbed.
 */
export interface ClientErrorRecord {
  id: string;
  /** The event_id of the first report merged into this record. */
  eventId: string;
  mergeKey: string;
  userId: string;
  username: string | null;
  deviceId: string;
  platform: string;
  severity: string;
  errorCode: string;
  message: string;
  stackTrace: string | null;
  operation: string;
  buildId: string | null;
  conversationId: string | null;
  messageId: string | null;
  traceId: string | null;
  recovered: boolean;
  /** JSON object. */
  context: string;
  occurrenceCount: number;
  firstSeenAt: number;
  lastSeenAt: number;
}

/** What "similar" means for the per-hour counts of one error. */
export type ClientErrorLikeness = Pick<ClientErrorRecord, 'platform' | 'errorCode' | 'operation' | 'buildId'>;
