/** Internal IDs are BIGINT: mysql2 returns them as strings, better-sqlite3 as numbers. */
export function idString(value: string | number | bigint): string {
  return String(value);
}

/** A positive decimal string of at most 19 digits that fits a signed BIGINT. */
export function isDecimalId(value: string): boolean {
  if (!/^[1-9][0-9]{0,18}$/.test(value)) return false;
  return BigInt(value) <= 9223372036854775807n;
}
