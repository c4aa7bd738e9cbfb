/** Quiet hours as stored: minutes after midnight in an IANA time zone. */
export interface StoredQuietHours {
  start: number;
  end: number;
  timezone: string;
}

const HHMM = /^([01][0-9]|2[0-3]):([0-5][0-9])$/;

/** "HH:MM" as minutes after midnight, or null when it is not a 24-hour time. */
export function minutesOf(hhmm: string): number | null {
  const match = HHMM.exec(hhmm);
  return match ? Number(match[1]) * 60 + Number(match[2]) : null;
}

export function hhmmOf(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/** Whether the runtime knows the zone (Intl throws a RangeError for an unknown one). */
export function isTimeZone(zone: string): boolean {
  if (zone.length === 0 || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Minutes after midnight at `at` (Unix ms) on the wall clock of `zone`. */
export function localMinutes(at: number, zone: string): number {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formatters.set(zone, format);
  }
  let hour = 0;
  let minute = 0;
  for (const part of format.formatToParts(new Date(at))) {
    if (part.type === 'hour') hour = Number(part.value);
    else if (part.type === 'minute') minute = Number(part.value);
  }
  return hour * 60 + minute;
}

/**
 * Whether `at` falls in the quiet hours: [start, end) on the user's wall clock, crossing
 * midnight when end is earlier than start; start equal to end is the whole day. A zone the
 * runtime no longer knows counts as not quiet (a notification too many beats one lost).
 */
export function inQuietHours(quiet: StoredQuietHours, at: number): boolean {
  if (quiet.start === quiet.end) return true;
  let now: number;
  try {
    now = localMinutes(at, quiet.timezone);
  } catch {
    return false;
  }
  return quiet.start < quiet.end ? now >= quiet.start && now < quiet.end : now >= quiet.start || now < quiet.end;
}
