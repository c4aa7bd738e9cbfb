import { hhmmOf, inQuietHours, isTimeZone, localMinutes, minutesOf } from './quiet-hours';

// 2026-01-15 14:30 UTC: 22:30 in Shanghai (UTC+8), 09:30 in New York (UTC-5, no DST in January).
const T = Date.UTC(2026, 0, 15, 14, 30);

describe('quiet hours', () => {
  it('reads and writes HH:MM', () => {
    expect(minutesOf('00:00')).toBe(0);
    expect(minutesOf('23:59')).toBe(23 * 60 + 59);
    expect(minutesOf('07:05')).toBe(425);
    for (const bad of ['24:00', '7:05', '07:60', '07:05:00', '', ' 07:05', '０７:05'])
      expect(minutesOf(bad)).toBeNull();
    expect(hhmmOf(425)).toBe('07:05');
    expect(hhmmOf(0)).toBe('00:00');
  });

  it('knows IANA zones and refuses others', () => {
    expect(isTimeZone('Asia/Shanghai')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
    expect(isTimeZone('x'.repeat(65))).toBe(false);
  });

  it('reads the wall clock of the zone, daylight saving included', () => {
    expect(localMinutes(T, 'Asia/Shanghai')).toBe(22 * 60 + 30);
    expect(localMinutes(T, 'America/New_York')).toBe(9 * 60 + 30);
    // July: New York is UTC-4.
    expect(localMinutes(Date.UTC(2026, 6, 15, 14, 30), 'America/New_York')).toBe(10 * 60 + 30);
  });

  it('covers a window crossing midnight, start inclusive and end exclusive', () => {
    const night = { start: 22 * 60, end: 7 * 60, timezone: 'Asia/Shanghai' };
    expect(inQuietHours(night, T)).toBe(true);
    expect(inQuietHours({ ...night, timezone: 'America/New_York' }, T)).toBe(false);
    expect(inQuietHours({ ...night, start: 22 * 60 + 30 }, T)).toBe(true);
    expect(inQuietHours({ ...night, start: 22 * 60 + 31 }, T)).toBe(false);
    expect(inQuietHours({ start: 21 * 60, end: 22 * 60 + 30, timezone: 'Asia/Shanghai' }, T)).toBe(false);
  });

  it('covers a daytime window and the whole day', () => {
    expect(inQuietHours({ start: 9 * 60, end: 17 * 60, timezone: 'America/New_York' }, T)).toBe(true);
    expect(inQuietHours({ start: 10 * 60, end: 17 * 60, timezone: 'America/New_York' }, T)).toBe(false);
    expect(inQuietHours({ start: 600, end: 600, timezone: 'UTC' }, T)).toBe(true);
  });
});
