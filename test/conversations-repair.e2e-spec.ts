// `npm run repair:conversations` recounts derived one-to-one state (user_unread_totals, and
// peer_id on member rows) from the member rows. Both are kept by every write; they can only
// drift if an earlier version wrote during the migration that introduced them, which these
// tests imitate with raw SQL. The repair must put them right, change nothing that is right, and
// be safe while sends and reads run.
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ConversationsRepairService } from '../src/conversations/conversations-repair.service';
import { Seed } from './helpers/seed';
import { directTotals } from './helpers/unread-totals';
import { IssuedUser, TestApp, bearer, friendConversationId, issueUser, okData, startTestApp } from './helpers/test-app';

type Row = Record<string, string | number | null>;
interface SyncReply {
  conversations: { items: Array<{ conversation_id: string; title: string; peer_user_id: string | null; unread: number }> };
  unread: { total: number; total_unmuted: number };
}

describe('repair of derived one-to-one state', () => {
  let t: TestApp;
  let seed: Seed;
  let db: DataSource;
  let repair: ConversationsRepairService;
  beforeAll(async () => {
    t = await startTestApp();
    seed = new Seed(t);
    db = t.app.get(DataSource);
    repair = t.app.get(ConversationsRepairService);
  });
  afterAll(() => t.close());

  const cid = friendConversationId;
  const post = (u: IssuedUser, path: string, body: object) => t.http.post(path).set(...bearer(u.token)).send(body);
  const send = async (from: IssuedUser, to: IssuedUser): Promise<void> => {
    okData(await post(from, '/app/sdk/messages/send', { conversation_id: cid(to), client_message_id: randomBytes(8).toString('hex'), type: 'text', content: { text: 'x' } }));
  };
  const sync = async (u: IssuedUser): Promise<SyncReply> => okData<SyncReply>(await post(u, '/app/sdk/sync', {}));

  const totals = (u: IssuedUser) => directTotals(db, u.id);

  const peers = async (u: IssuedUser): Promise<Array<string | null>> =>
    ((await db.query('SELECT peer_id FROM conversation_members WHERE user_id = ? AND is_group = 0 ORDER BY conversation_id', [u.id])) as Row[]).map((r) =>
      r.peer_id === null ? null : String(r.peer_id),
    );

  it('restores wrong and missing totals and missing peers, and then changes nothing', async () => {
    const [me, a, b] = [await issueUser(t), await issueUser(t), await issueUser(t)];
    await seed.friends(me.id, a.id);
    await seed.friends(me.id, b.id);
    await send(a, me);
    await send(a, me);
    await send(b, me);
    await send(me, a);
    okData(await post(me, '/app/sdk/conversations/mute', { conversation_id: cid(b), muted: true }));
    const expected = { total: 3, unmuted: 2 };
    expect(await totals(me)).toEqual({ stored: expected, sums: expected });
    const peersBefore = await peers(me);
    expect(peersBefore.sort()).toEqual([a.id, b.id].sort());
    const before = await sync(me);
    expect(before.unread).toEqual({ total: 3, total_unmuted: 2 });

    // What an earlier version's writes during the migrations could leave behind.
    await db.query('UPDATE user_unread_totals SET direct_unread = 99, direct_unread_unmuted = 7 WHERE user_id = ?', [me.id]);
    await db.query('DELETE FROM user_unread_totals WHERE user_id = ?', [b.id]);
    await db.query('UPDATE conversation_members SET peer_id = NULL WHERE user_id IN (?, ?) AND is_group = 0', [me.id, a.id]);
    const broken = await sync(me);
    expect(broken.unread).toEqual({ total: 99, total_unmuted: 7 });
    // Without its peer a one-to-one conversation cannot be named, so the list drops it.
    expect(broken.conversations.items).toEqual([]);

    expect(await repair.repairUsers([me.id, a.id, b.id])).toEqual({ users: 3, totalsFixed: 2, peersFilled: 3 });
    expect(await totals(me)).toEqual({ stored: expected, sums: expected });
    expect(await totals(a)).toEqual({ stored: { total: 1, unmuted: 1 }, sums: { total: 1, unmuted: 1 } });
    expect(await totals(b)).toEqual({ stored: { total: 0, unmuted: 0 }, sums: { total: 0, unmuted: 0 } });
    expect(await peers(me)).toEqual(peersBefore);
    expect(await peers(a)).toEqual([me.id]);
    const repaired = await sync(me);
    expect(repaired).toEqual({ ...before, server_time: (repaired as SyncReply & { server_time: number }).server_time });
    expect(okData<SyncReply>(await post(a, '/app/sdk/sync', {})).conversations.items.map((i) => i.peer_user_id)).toEqual([me.userId]);

    // A second pass finds nothing to do.
    expect(await repair.repairUsers([me.id, a.id, b.id])).toEqual({ users: 3, totalsFixed: 0, peersFilled: 0 });
  });

  it('repairAll reaches every user with one-to-one rows', async () => {
    const [me, a] = [await issueUser(t), await issueUser(t)];
    await seed.friends(me.id, a.id);
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
    const me = await issueUser(t);
    const others = [await issueUser(t), await issueUser(t), await issueUser(t), await issueUser(t)];
    for (const other of others) {
      await seed.friends(me.id, other.id);
      await send(other, me);
      await send(other, me);
    }
    // Then, at once: four more messages per peer, a read of each peer's first two, and repairs.
    const sends = others.flatMap((other) => Array.from({ length: 4 }, () => send(other, me)));
    const repairs = Array.from({ length: 8 }, () => repair.repairUsers([me.id]));
    const reads = others.map(async (other) => okData(await post(me, '/app/sdk/messages/read', { conversation_id: cid(other), read_seq: '2' })));
    const results = await Promise.all([Promise.all(repairs), ...sends, ...reads]);
    // The totals were right all along, so no pass may have found them wrong.
    for (const summary of results[0] as Array<{ totalsFixed: number }>) expect(summary.totalsFixed).toBe(0);
    const { stored, sums } = await totals(me);
    expect(stored).toEqual(sums);
    // 24 messages, of which each peer's first two were read.
    expect(sums).toEqual({ total: 16, unmuted: 16 });
    expect(okData<SyncReply>(await post(me, '/app/sdk/sync', {})).unread).toEqual({ total: sums.total, total_unmuted: sums.unmuted });
  });
});
