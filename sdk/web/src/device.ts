/** This SDK's version (sdk/web/package.json's; a unit spec keeps the two equal). */
export const SDK_VERSION = '0.1.0';

/** What the handshake's `auth.device` carries: operators see it on the user's page in the admin console. */
export interface ConnectionDevice {
  platform: 'web';
  device_id: string;
  app_version?: string;
}

// The service's rules for auth.device: a device ID or version it would refuse (1004) is not sent.
const DEVICE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const APP_VERSION = /^[A-Za-z0-9._+/-]{1,32}$/;

/**
 * The device named at every connect: the client's device ID (the one calls and push use) and
 * the app's version, else the SDK's. Nothing when the ID breaks the service's rule, so a
 * connection is never refused for it.
 */
export function connectionDevice(deviceId: string, appVersion?: string): ConnectionDevice | undefined {
  if (!DEVICE_ID.test(deviceId)) return undefined;
  const version = appVersion ?? `web-sdk/${SDK_VERSION}`;
  return { platform: 'web', device_id: deviceId, ...(APP_VERSION.test(version) ? { app_version: version } : {}) };
}
