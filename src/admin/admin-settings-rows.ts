import type { CapabilityName, RateLimitName } from '../config/messaging-config';
import type { RuntimeSettings, SettingName } from '../settings/runtime-settings';
import type { SettingRow } from '../settings/setting-row';

/** The value `name` would be stored as (the shape settings/update writes), read from whole settings. */
function rowValue(settings: RuntimeSettings, name: SettingName): unknown {
  const [group, entry] = name.split('.', 2);
  if (group === 'capabilities') return settings.capabilities[entry as CapabilityName];
  if (group === 'rate_limits') {
    const rule = settings.rateLimits[entry as RateLimitName];
    return { limit: rule.limit, window_ms: rule.windowMs };
  }
  switch (name) {
    case 'sdk_enabled':
      return settings.sdkEnabled;
    case 'blocked_keywords':
      return settings.blockedKeywords;
    case 'recall_window_seconds':
      return settings.recallWindowSeconds;
    case 'push_rules':
      return settings.pushRules.map((r) => ({
        platform: r.platform,
        manufacturer: r.manufacturer,
        package_name: r.package_name,
        config: r.config,
      }));
    case 'rtc_sdk_app_id':
      return settings.rtc.sdkAppId;
    default:
      return undefined;
  }
}

/** JSON with every object's keys sorted: two values are equal when their texts are. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

function parsed(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The rows of a save that change something. A value equal to its stored row, or with no row to
 * the environment's value, is left out: saving what is already in force stores no override (the
 * setting keeps following the environment) and writes no audit row. A stored row the service
 * does not understand counts as different, so a save replaces it.
 */
export function changedRows(
  values: ReadonlyMap<SettingName, string>,
  stored: readonly SettingRow[],
  environment: RuntimeSettings,
): Map<SettingName, string> {
  const rows = new Map(stored.map((row) => [row.name, row.valueJson]));
  return new Map(
    [...values].filter(([name, json]) => {
      const current = rows.has(name) ? parsed(rows.get(name)!) : rowValue(environment, name);
      return current === undefined || canonical(current) !== canonical(JSON.parse(json));
    }),
  );
}
