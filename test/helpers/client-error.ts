import { clientErrorBody } from './factories';

/**
 * A valid client error report of `userId` on device "device-1", with `over` replacing fields:
 * test/helpers/factories.ts's clientErrorBody with the values the specs importing this relied on.
 */
export function clientErrorReport(userId: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return clientErrorBody({ userId }, { device_id: 'device-1', platform: 'ios', message: 'timed out', ...over });
}
