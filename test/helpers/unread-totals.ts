import { DataSource } from 'typeorm';

export interface Totals {
  total: number;
  unmuted: number;
}

/**
 * A user's stored user_unread_totals row (null when missing) and the sums it stands for over
 * their one-to-one member rows, read straight from the database.
 */
export async function directTotals(db: DataSource, userId: string): Promise<{ stored: Totals | null; sums: Totals }> {
  const [stored] = (await db.query('SELECT direct_unread, direct_unread_unmuted FROM user_unread_totals WHERE user_id = ?', [userId])) as Array<Record<string, string | number>>;
  const [sums] = (await db.query(
    'SELECT COALESCE(SUM(unread_count), 0) AS total, COALESCE(SUM(CASE WHEN muted = 0 THEN unread_count ELSE 0 END), 0) AS unmuted FROM conversation_members WHERE user_id = ? AND is_group = 0',
    [userId],
  )) as Array<Record<string, string | number>>;
  return {
    stored: stored ? { total: Number(stored.direct_unread), unmuted: Number(stored.direct_unread_unmuted) } : null,
    sums: { total: Number(sums.total), unmuted: Number(sums.unmuted) },
  };
}
