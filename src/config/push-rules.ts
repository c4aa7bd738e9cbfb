/**
 * Native push initialisation is configured per application and platform (spec 2.4). A rule
 * matches a token request on platform, manufacturer and package name ("*" matches any);
 * the reply's `push` object is the shallow merge of the `config` of every matching rule, in
 * configured order, so a general rule can be refined by a vendor-specific one.
 */
export interface PushRule {
  platform: string;
  manufacturer: string;
  package_name: string;
  config: Record<string, unknown>;
}

export interface PushTarget {
  platform: string;
  manufacturer: string;
  package_name: string;
}

const PLATFORMS = ['android', 'ios', 'harmony', '*'];

export function parsePushRules(raw: string | undefined): PushRule[] {
  if (raw === undefined || raw.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error('PUSH_RULES must be a JSON array of rules');
  }
  if (!Array.isArray(parsed)) throw new Error('PUSH_RULES must be a JSON array of rules');
  return parsed.map((rule: unknown, index) => {
    const where = `PUSH_RULES[${index}]`;
    if (!rule || typeof rule !== 'object' || Array.isArray(rule)) throw new Error(`${where} must be an object`);
    const r = rule as Record<string, unknown>;
    const field = (name: string): string => {
      const value = r[name] ?? '*';
      if (typeof value !== 'string' || value === '')
        throw new Error(`${where}.${name} must be a non-empty string or "*"`);
      return value;
    };
    const platform = field('platform').toLowerCase();
    if (!PLATFORMS.includes(platform)) throw new Error(`${where}.platform must be android, ios, harmony or "*"`);
    const config = r.config;
    if (!config || typeof config !== 'object' || Array.isArray(config))
      throw new Error(`${where}.config must be an object`);
    return {
      platform,
      manufacturer: field('manufacturer'),
      package_name: field('package_name'),
      config: config as Record<string, unknown>,
    };
  });
}

function matches(pattern: string, value: string, caseInsensitive: boolean): boolean {
  if (pattern === '*') return true;
  return caseInsensitive ? pattern.toLowerCase() === value.toLowerCase() : pattern === value;
}

export function buildPushConfig(rules: readonly PushRule[], target: PushTarget | null): Record<string, unknown> {
  if (!target) return {};
  const push: Record<string, unknown> = {};
  for (const rule of rules) {
    if (
      matches(rule.platform, target.platform, true) &&
      matches(rule.manufacturer, target.manufacturer, true) &&
      matches(rule.package_name, target.package_name, false)
    ) {
      Object.assign(push, structuredClone(rule.config));
    }
  }
  return push;
}
