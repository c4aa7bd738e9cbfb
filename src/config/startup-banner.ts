import type { AppConfig } from './app-config';

/**
 * The start-up lines: where the service listens and the addresses a newcomer opens first.
 * The demo is listed only where it is served (development with the host application on).
 */
export function startupBanner(config: AppConfig, database: string): string[] {
  const local = `http://localhost:${config.port}`;
  const base = config.publicBaseUrl === local ? local : `${local} (public address ${config.publicBaseUrl})`;
  const lines = [`IM SDK service listening on ${base} (${config.nodeEnv}, database: ${database})`];
  const pages = [`API browser ${local}/docs`, `admin console ${local}/admin`];
  if (config.nodeEnv !== 'production' && config.hostApp.enabled) pages.push(`demo chat ${local}/demo`);
  lines.push(`Open: ${pages.join(', ')}`);
  return lines;
}
