import { FakeStoreDeps, message } from '../../../../test/sdk/store-fakes.js';
import { TYPING_EXPIRY_MS, TYPING_NOTIFY_INTERVAL_MS, TypingStore } from './typing-store.js';

describe('TypingStore', () => {
  let deps: FakeStoreDeps;
  let store: TypingStore;

  beforeEach(() => {
    jest.useFakeTimers();
    deps = new FakeStoreDeps();
    // The store's clock and its timers move together, as Date.now and setTimeout do.
    deps.now = () => Date.now();
    store = new TypingStore(deps);
  });
  afterEach(() => {
    store.reset();
    jest.useRealTimers();
  });

  const typing = (conversationId: string, userId: string) =>
    deps.event('conversation.typing', { conversation_id: conversationId, user_id: userId });

  it('shows who is typing per conversation, in the order they started', () => {
    typing('group_g', 'a');
    typing('group_g', 'b');
    typing('friend_c', 'c');
    expect(store.usersIn('group_g')).toEqual(['a', 'b']);
    expect(store.usersIn('friend_c')).toEqual(['c']);
    expect(store.usersIn('friend_nobody')).toEqual([]);
    expect(store.usersIn('friend_nobody')).toBe(store.usersIn('friend_other'));
  });

  it(`expires an entry ${TYPING_EXPIRY_MS} ms after its last notice`, () => {
    typing('group_g', 'a');
    jest.advanceTimersByTime(TYPING_EXPIRY_MS - 1000);
    typing('group_g', 'a');
    typing('group_g', 'b');
    jest.advanceTimersByTime(1000);
    // a's first notice would have expired now; its second one keeps it.
    expect(store.usersIn('group_g')).toEqual(['a', 'b']);
    jest.advanceTimersByTime(TYPING_EXPIRY_MS - 1000);
    expect(store.usersIn('group_g')).toEqual([]);
    expect(store.getSnapshot().size).toBe(0);
  });

  it('keeps the snapshot while a typer goes on typing (no change to show)', () => {
    typing('group_g', 'a');
    const before = store.getSnapshot();
    jest.advanceTimersByTime(1000);
    typing('group_g', 'a');
    expect(store.getSnapshot()).toBe(before);
  });

  it('clears a typer when their message arrives, and only theirs', () => {
    typing('group_g', 'a');
    typing('group_g', 'b');
    deps.event('message.new', {
      conversation_id: 'group_g',
      unread: null,
      by: 'a',
      message: message({ conversation_id: 'group_g', conversation_seq: '4', sender_id: 'a' }),
    });
    expect(store.usersIn('group_g')).toEqual(['b']);
  });

  it('never shows the user themself', () => {
    typing('group_g', 'me');
    expect(store.usersIn('group_g')).toEqual([]);
  });

  it(`sends at most one notice per ${TYPING_NOTIFY_INTERVAL_MS} ms per conversation`, async () => {
    expect(await store.notify('group_g')).toBe(true);
    expect(await store.notify('group_g')).toBe(false);
    expect(await store.notify('friend_x')).toBe(true);
    jest.advanceTimersByTime(TYPING_NOTIFY_INTERVAL_MS - 1);
    expect(await store.notify('group_g')).toBe(false);
    jest.advanceTimersByTime(1);
    expect(await store.notify('group_g')).toBe(true);
    expect(deps.typingSent).toEqual(['group_g', 'friend_x', 'group_g']);
  });

  it('answers false on a refusal and keeps the throttle; without a connection the next keystroke tries again', async () => {
    deps.typingAck = async () => ({ code: 1203, msg: 'conversation_id: you cannot send to this user' });
    expect(await store.notify('friend_x')).toBe(false);
    expect(await store.notify('friend_x')).toBe(false);
    expect(deps.typingSent).toEqual(['friend_x']);
    deps.typingAck = () => Promise.reject(new Error('not connected'));
    expect(await store.notify('group_g')).toBe(false);
    deps.typingAck = async () => ({ code: 0, msg: 'ok' });
    expect(await store.notify('group_g')).toBe(true);
    expect(deps.typingSent).toEqual(['friend_x', 'group_g', 'group_g']);
  });

  it('forgets everything at reset, timers included', () => {
    typing('group_g', 'a');
    store.reset();
    expect(store.getSnapshot().size).toBe(0);
    expect(jest.getTimerCount()).toBe(0);
  });
});
