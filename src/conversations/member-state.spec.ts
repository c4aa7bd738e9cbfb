import { StoredMemberState, effectiveMemberState, versionsSeenBy } from './member-state';

const stored = (over: Partial<StoredMemberState> = {}): StoredMemberState => ({
  isGroup: true,
  readSeq: '10',
  visibleToSeq: null,
  uncounted: 0,
  unreadCount: 0,
  lastActivityAt: 1_000,
  hidden: false,
  hiddenSeq: null,
  ...over,
});

describe('effectiveMemberState', () => {
  it('keeps a one-to-one row as stored', () => {
    const row = stored({ isGroup: false, unreadCount: 3, lastActivityAt: 5, hidden: true, hiddenSeq: '1' });
    expect(effectiveMemberState(row, { lastSeq: '99', lastMessageAt: 9_999 })).toEqual({
      unreadCount: 3,
      lastActivityAt: 5,
      hidden: true,
    });
  });

  it("derives a current group member's unread from last_seq, read_seq and what does not count", () => {
    expect(effectiveMemberState(stored({ uncounted: 2 }), { lastSeq: '15', lastMessageAt: 2_000 }).unreadCount).toBe(3);
    expect(effectiveMemberState(stored(), { lastSeq: '10', lastMessageAt: 2_000 }).unreadCount).toBe(0);
  });

  it("stops a former member's unread and activity at the leave point", () => {
    const left = stored({ visibleToSeq: '12', uncounted: 1, lastActivityAt: 1_500 });
    expect(effectiveMemberState(left, { lastSeq: '40', lastMessageAt: 9_000 })).toEqual({
      unreadCount: 1,
      lastActivityAt: 1_500,
      hidden: false,
    });
  });

  it('takes the later of joining and the last message as activity', () => {
    expect(
      effectiveMemberState(stored({ lastActivityAt: 3_000 }), { lastSeq: '10', lastMessageAt: 2_000 }).lastActivityAt,
    ).toBe(3_000);
    expect(
      effectiveMemberState(stored({ lastActivityAt: 3_000 }), { lastSeq: '11', lastMessageAt: 4_000 }).lastActivityAt,
    ).toBe(4_000);
  });

  it('keeps a hidden group hidden until a message beyond the hiding point', () => {
    const hidden = stored({ hidden: true, hiddenSeq: '10' });
    expect(effectiveMemberState(hidden, { lastSeq: '10', lastMessageAt: 1 }).hidden).toBe(true);
    expect(effectiveMemberState(hidden, { lastSeq: '11', lastMessageAt: 2 }).hidden).toBe(false);
    expect(effectiveMemberState({ ...hidden, visibleToSeq: '10' }, { lastSeq: '30', lastMessageAt: 2 }).hidden).toBe(
      true,
    );
  });

  it('never reports negative unread', () => {
    expect(effectiveMemberState(stored({ uncounted: 5 }), { lastSeq: '12', lastMessageAt: 1 }).unreadCount).toBe(0);
  });
});

describe('versionsSeenBy', () => {
  const conversation = { contentUpdatedAt: 9000, deletionRevision: '7' };

  it("gives a current member the conversation's versions", () => {
    expect(versionsSeenBy({ visibleUpdatedAt: null, visibleDeletionRevision: null }, conversation)).toEqual({
      updatedAt: 9000,
      deletionRevision: '7',
    });
  });

  it('gives a former member the versions of his window', () => {
    expect(versionsSeenBy({ visibleUpdatedAt: 1234, visibleDeletionRevision: '2' }, conversation)).toEqual({
      updatedAt: 1234,
      deletionRevision: '2',
    });
  });
});
