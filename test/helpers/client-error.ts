import { randomUUID } from 'node:crypto';

/** A valid client error report (spec 4.2: all 16 fields) of `userId`, with `over` replacing fields. */
export function clientErrorReport(userId: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    event_id: randomUUID(),
    user_id: userId,
    username: null,
    device_id: 'device-1',
    platform: 'ios',
    severity: 'normal',
    error_code: 'net.timeout',
    message: 'timed out',
    stack_trace: null,
    operation: 'sync',
    build_id: null,
    conversation_id: null,
    message_id: null,
    trace_id: null,
    recovered: false,
    context: { screen: 'home' },
    ...over,
  };
}
