import Database from 'better-sqlite3';
import { GROUP_SQL, StoredMemberState, VERSIONS_SQL, effectiveMemberState, versionsSeenBy } from './member-state';

/**
 * The group rules exist twice: effectiveMemberState/versionsSeenBy for rows already read, and
 * GROUP_SQL/VERSIONS_SQL inside the home-list, unread and sync statements. This evaluates the SQL
 * fragments (on SQLite, in memory) over many rows and checks that both give the same answers.
 */
describe('member-state: the SQL fragments agree with the TypeScript rules', () => {
  const db = new Database(':memory:');
  afterAll(() => db.close());

  const select = db.prepare(
    `SELECT ${GROUP_SQL.unreadClamped} AS unread, ${GROUP_SQL.activity} AS activity, ${GROUP_SQL.shown} AS shown, ` +
      `${VERSIONS_SQL.updatedAt} AS updated_at, ${VERSIONS_SQL.deletionRevision} AS deletion_revision ` +
      'FROM (SELECT ? AS read_seq, ? AS visible_to_seq, ? AS uncounted, ? AS last_activity_at, ? AS hidden, ? AS hidden_seq, ' +
      '? AS visible_updated_at, ? AS visible_deletion_revision) m, (SELECT ? AS last_seq, ? AS last_message_at, ? AS content_updated_at, ? AS deletion_revision) c',
  );

  // A small deterministic generator: the same rows on every run.
  let state = 42;
  const next = (n: number): number => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };

  it('for 5,000 generated group rows', () => {
    for (let i = 0; i < 5_000; i++) {
      const lastSeq = next(30);
      const left = next(3) === 0;
      const visibleToSeq = left ? next(lastSeq + 1) : null;
      const upper = visibleToSeq ?? lastSeq;
      const readSeq = next(upper + 1);
      const member: StoredMemberState = {
        isGroup: true,
        readSeq: String(readSeq),
        visibleToSeq: visibleToSeq === null ? null : String(visibleToSeq),
        // Sometimes more than what is left to read: the clamp must hold.
        uncounted: next(upper - readSeq + 3),
        unreadCount: 0,
        lastActivityAt: next(2_000),
        hidden: next(2) === 0,
        hiddenSeq: next(3) === 0 ? null : String(next(lastSeq + 2)),
      };
      const conversation = {
        lastSeq: String(lastSeq),
        lastMessageAt: next(2_000),
        contentUpdatedAt: 5_000 + next(100),
        deletionRevision: String(next(5)),
      };
      const versions =
        next(2) === 0
          ? { visibleUpdatedAt: null, visibleDeletionRevision: null }
          : { visibleUpdatedAt: 4_000 + next(100), visibleDeletionRevision: String(next(5)) };

      const row = select.get(
        readSeq,
        visibleToSeq,
        member.uncounted,
        member.lastActivityAt,
        member.hidden ? 1 : 0,
        member.hiddenSeq === null ? null : Number(member.hiddenSeq),
        versions.visibleUpdatedAt,
        versions.visibleDeletionRevision === null ? null : Number(versions.visibleDeletionRevision),
        lastSeq,
        conversation.lastMessageAt,
        conversation.contentUpdatedAt,
        Number(conversation.deletionRevision),
      ) as { unread: number; activity: number; shown: number; updated_at: number; deletion_revision: number };

      const expected = effectiveMemberState(member, conversation);
      const seen = versionsSeenBy(versions, conversation);
      expect({
        unread: row.unread,
        activity: row.activity,
        hidden: row.shown === 0,
        updatedAt: row.updated_at,
        deletionRevision: String(row.deletion_revision),
      }).toEqual({
        unread: expected.unreadCount,
        activity: expected.lastActivityAt,
        hidden: expected.hidden,
        updatedAt: seen.updatedAt,
        deletionRevision: seen.deletionRevision,
      });
    }
  });
});
