// Reading the providers' answers: the same rules for every adapter.

/** Milliseconds from a Retry-After header (seconds or an HTTP date), when it names a sane wait. */
export function retryAfterMs(header: string | string[] | undefined, now: number): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  if (Number.isFinite(date) && date > now) return date - now;
  return undefined;
}

/** A JSON object from a body, or null when the body is anything else (a proxy's page, nothing). */
export function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** A provider's message for a reason string: short, and without the device token should it echo one. */
export function withoutToken(text: string, token: string, label: string): string {
  const cleaned = token ? text.split(token).join(`[${label}]`) : text;
  return cleaned.length > 120 ? `${cleaned.slice(0, 120)}…` : cleaned;
}
