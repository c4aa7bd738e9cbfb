import type { AppConfig } from './app-config';
import { pushSecrets } from './push-config';

/**
 * Every credential value the service is configured with. None may appear in a log line, a
 * stored record or a trace ID; the scrubber and the trace-ID check both read this one list.
 */
export function configuredSecrets(config: AppConfig): string[] {
  return [
    config.sdkSecret,
    config.jwtSecret,
    config.rtc.callbackSecret,
    config.rtc.secretKey,
    config.operations.metricsToken ?? '',
    config.admin.bootstrap?.password ?? '',
    config.hostApp.sms.httpKey,
    ...pushSecrets(config.push),
  ].filter((secret) => secret !== '');
}
