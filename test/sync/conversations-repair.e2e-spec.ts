// `npm run repair:conversations` recounts derived one-to-one state (user_unread_totals, and
// peer_id on member rows) from the member rows. Both are kept by every write; they can only
// drift if an earlier version wrote during the migration that introduced them, which these
// tests imitate with raw SQL. The repair must put them right, change nothing that is right, and
// be safe while sends and reads run.
import { DataSource } from 'typeorm';
import { ConversationsRepairService } from '../../src/conversations/conversations-repair.service';
import { TestApp, startTestApp } from '../helpers/test-app';
import { ApiClient, IssuedUser, friendCid } from '../helpers/api-client';
import { directTotals } from '../helpers/assertions';

type Row = Record<string, string | number | null>;

describe('repair of derived one-to-one state', () => {
  let t: TestApp;
  let api: ApiClient;
  let db: DataSource;
  let repair: ConversationsRepairService;
  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
    db = t.app.get(DataSource);
    repair = t.app.get(ConversationsRepairService);
  });
  afterAll(() => t.close());

  const send = async (from: IssuedUser, to: IssuedUser): Promise<void> => {
    await api.send(from, friendCid(to), 'x');
  };

  // Totals and peers are read from the rows: they are what the repair writes.
  const totals = (u: IssuedUser) => directTotals(db, u.id);

  const peers = async (u: IssuedUser): Promise<Array<string | null>> =>
    (
      (await db.query(
        'SELECT peer_id FROM conversation_members WHERE user_id = ? AND is_group = 0 ORDER BY conversation_id',
        [u.id],
      )) as Row[]
    ).map((r) => (r.peer_id === null ? null : String(r.peer_id)));

  it('restores wrong and missing totals and missing peers, and then changes nothing', async () => {
    const [me, a, b] = await api.users(3);
    await api.befriend(me, a);
    await api.befriend(me, b);
    await send(a, me);
    await send(a, me);
    await send(b, me);
    await send(me, a);
    await api.setting(me, 'mute', friendCid(b), true);
    const expected = { total: 3, unmuted: 2 };
    expect(await totals(me)).toEqual({ stored: expected, sums: expected });
    const peersBefore = await peers(me);
    expect([...peersBefore].sort()).toEqual([a.id, b.id].sort());
    const before = await api.sync(me);
    expect(before.unread).toEqual({ total: 3, total_unmuted: 2 });

    // What an earlier version's writes during the migrations could leave behind.
    await db.query('UPDATE user_unread_totals SET direct_unread = 99, direct_unread_unmuted = 7 WHERE user_id = ?', [
      me.id,
    ]);
    await db.query('DELETE FROM user_unread_totals WHERE user_id = ?', [b.id]);
    await db.query('UPDATE conversation_members SET peer_id = NULL WHERE user_id IN (?, ?) AND is_group = 0', [
      me.id,
      a.id,
    ]);
    const broken = await api.sync(me);
    expect(broken.unread).toEqual({ total: 99, total_unmuted: 7 });
    // Without its peer a one-to-one conversation cannot be named, so the list drops it.
    expect(broken.conversations.items).toEqual([]);

    expect(await repair.repairUsers([me.id, a.id, b.id])).toEqual({ users: 3, totalsFixed: 2, peersFilled: 3 });
    expect(await totals(me)).toEqual({ stored: expected, sums: expected });
    expect(await totals(a)).toEqual({ stored: { total: 1, unmuted: 1 }, sums: { total: 1, unmuted: 1 } });
    expect(await totals(b)).toEqual({ stored: { total: 0, unmuted: 0 }, sums: { total: 0, unmuted: 0 } });
    expect(await peers(me)).toEqual(peersBefore);
    expect(await peers(a)).toEqual([me.id]);
    const repaired = await api.sync(me);
    expect(repaired).toEqual({ ...before, server_time: repaired.server_time });
    expect((await api.sync(a)).conversations.items.map((i) => i.peer_user_id)).toEqual([me.userId]);

    // A second pass finds nothing to do.
    expect(await repair.repairUsers([me.id, a.id, b.id])).toEqual({ users: 3, totalsFixed: 0, peersFilled: 0 });
  });

  it('repairAll reaches every user with one-to-one rows', async () => {
    const [me, a] = await api.users(2);
    await api.befriend(me, a);
    await send(a, me);
    await db.query('UPDATE user_unread_totals SET direct_unread = 5 WHERE user_id = ?', [me.id]);
    await db.query('UPDATE conversation_members SET peer_id = NULL WHERE user_id = ? AND is_group = 0', [a.id]);
    const summary = await repair.repairAll();
    // Other suites' users may share the database (MySQL); ours are among those counted.
    expect(summary.users).toBeGreaterThanOrEqual(2);
    expect(summary.totalsFixed).toBeGreaterThanOrEqual(1);
    expect(summary.peersFilled).toBeGreaterThanOrEqual(1);
    expect(await totals(me)).toEqual({ stored: { total: 1, unmuted: 1 }, sums: { total: 1, unmuted: 1 } });
    expect(await peers(a)).toEqual([me.id]);
  });

  it('keeps totals equal to the rows while sends, reads and repairs run at once', async () => {
    const me = await api.user();
    const others = await api.users(4);
    for (const other of others) {
      await api.befriend(me, other);
      await send(other, me);
      await send(other, me);
    }
    // Then, at once: four more messages per peer, a read of each peer's first two, and repairs.
    const sends = others.flatMap((other) => Array.from({ length: 4 }, () => send(other, me)));
    const repairs = Array.from({ length: 8 }, () => repair.repairUsers([me.id]));
    const reads = others.map((other) => api.read(me, friendCid(other), '2'));
    const results = await Promise.all([Promise.all(repairs), ...sends, ...reads]);
    // The totals were right all along, so no pass may have found them wrong.
    for (const summary of results[0] as Array<{ totalsFixed: number }>) expect(summary.totalsFixed).toBe(0);
    const { stored, sums } = await totals(me);
    expect(stored).toEqual(sums);
    // 24 messages, of which each peer's first two were read.
    expect(sums).toEqual({ total: 16, unmuted: 16 });
    expect((await api.sync(me)).unread).toEqual({ total: sums.total, total_unmuted: sums.unmuted });
  });
});
