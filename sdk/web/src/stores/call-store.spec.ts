import type { CallEndReason, CallParticipantReply, CallReply } from '../../../../src/contract/index.js';
import { FakeStoreDeps, call, settle } from '../../../../test/sdk/store-fakes.js';
import { CallStore, ENDED_CALLS_KEPT } from './call-store.js';

type Wire = Omit<CallReply, 'conversation_id'>;
const wire = ({ conversation_id: _own, ...rest }: CallReply): Wire => rest;

/** The call with one participant's state changed. */
function withParticipant(c: CallReply, userId: string, fields: Partial<CallParticipantReply>): CallReply {
  return { ...c, participants: c.participants.map((p) => (p.user_id === userId ? { ...p, ...fields } : p)) };
}

describe('CallStore', () => {
  let deps: FakeStoreDeps;
  let store: CallStore;

  beforeEach(() => {
    deps = new FakeStoreDeps();
    store = new CallStore(deps);
  });

  const own = { conversation_id: 'friend_peer' };
  const invited = (c: CallReply) => deps.event('call.invited', { call: wire(c), ...own });
  const ringing = (c: CallReply, userId: string) =>
    deps.event('call.ringing', { call: wire(c), user_id: userId, ...own });
  const accepted = (c: CallReply, userId: string, deviceId: string) =>
    deps.event('call.accepted', { call: wire(c), user_id: userId, device_id: deviceId, ...own });
  const ended = (c: CallReply, reason: CallEndReason) =>
    deps.event('call.ended', {
      call: wire({ ...c, state: 'ended' as const, end_reason: reason, ended_at: 20_000 }),
      reason,
      ...own,
    });

  /** A call the peer places to the user. */
  const incomingCall = (id = 'call-1') => call({ call_id: id });
  /** A call the user places to the peer. */
  const outgoingCall = (id = 'call-2') =>
    call({
      call_id: id,
      caller_user_id: 'me',
      participants: [
        { user_id: 'me', role: 'caller', state: 'joined', in_room: false, joined_at: 10_000, left_at: null },
        { user_id: 'peer', role: 'callee', state: 'invited', in_room: false, joined_at: null, left_at: null },
      ],
    });

  it('shows a call the user is invited to as incoming', () => {
    invited(incomingCall());
    expect(store.get('call-1')).toMatchObject({
      phase: 'incoming',
      direction: 'incoming',
      end_reason: null,
      conversation_id: 'friend_peer',
      media: 'audio',
    });
    expect(store.incoming?.call_id).toBe('call-1');
    expect(store.active).toBeNull();
  });

  it('takes an outgoing call through ringing and ongoing to hangup', () => {
    const c = outgoingCall();
    invited(c);
    expect(store.get('call-2')).toMatchObject({ phase: 'outgoing', direction: 'outgoing' });
    expect(store.active?.call_id).toBe('call-2');
    const rang = withParticipant(c, 'peer', { state: 'ringing' as const });
    ringing(rang, 'peer');
    expect(store.get('call-2')?.phase).toBe('ringing');
    const answered = {
      ...withParticipant(rang, 'peer', { state: 'joined' }),
      state: 'ongoing' as const,
      accepted_at: 12_000,
    };
    accepted(answered, 'peer', 'their-phone');
    expect(store.get('call-2')?.phase).toBe('ongoing');
    ended(answered, 'hangup');
    expect(store.get('call-2')).toMatchObject({ phase: 'ended', end_reason: 'hangup' });
    expect(store.active).toBeNull();
  });

  it('answers here: this device accepted', () => {
    const c = incomingCall();
    invited(c);
    accepted({ ...withParticipant(c, 'me', { state: 'joined' }), state: 'ongoing' as const }, 'me', 'dev-here');
    expect(store.get('call-1')?.phase).toBe('ongoing');
    expect(store.active?.call_id).toBe('call-1');
    expect(store.incoming).toBeNull();
  });

  it('ends an incoming call as answered elsewhere when another device of the user accepts, and keeps that reason', () => {
    const c = incomingCall();
    invited(c);
    const answered = { ...withParticipant(c, 'me', { state: 'joined' }), state: 'ongoing' as const };
    accepted(answered, 'me', 'dev-other');
    expect(store.get('call-1')).toMatchObject({ phase: 'ended', end_reason: 'other_device_accepted' });
    expect(store.incoming).toBeNull();
    expect(store.active).toBeNull();
    ended(answered, 'hangup');
    expect(store.get('call-1')?.end_reason).toBe('other_device_accepted');
  });

  it.each<CallEndReason>(['canceled', 'rejected', 'busy', 'no_answer', 'ended_by_server', 'interrupted', 'hangup'])(
    'ends with the service’s reason %s',
    (reason) => {
      const c = incomingCall();
      invited(c);
      ended(c, reason);
      expect(store.get('call-1')).toMatchObject({ phase: 'ended', end_reason: reason });
    },
  );

  it('shows a call first heard of at its end (a busy callee hears only call.ended)', () => {
    ended(incomingCall('call-busy'), 'busy');
    expect(store.get('call-busy')).toMatchObject({ phase: 'ended', end_reason: 'busy', direction: 'incoming' });
  });

  it('answers null for a reason the SDK does not know', () => {
    const c = incomingCall();
    // A newer service may add a reason this SDK's contract does not name yet.
    ended(c, 'something_new' as CallEndReason);
    expect(store.get('call-1')).toMatchObject({ phase: 'ended', end_reason: null });
  });

  it('ends a caller’s cancel as canceled (call.canceled, then call.ended)', () => {
    const c = incomingCall();
    invited(c);
    deps.event('call.canceled', { call: wire(c), ...own });
    expect(store.get('call-1')?.phase).toBe('incoming');
    ended(c, 'canceled');
    expect(store.get('call-1')).toMatchObject({ phase: 'ended', end_reason: 'canceled' });
  });

  it('changes nothing for a duplicate event or an older one after the end', () => {
    const c = outgoingCall();
    const event = invited(c);
    const before = store.getSnapshot();
    deps.emitter.emit('call.invited', event);
    expect(store.getSnapshot()).toBe(before);
    ended(c, 'no_answer');
    ringing(withParticipant(c, 'peer', { state: 'ringing' as const }), 'peer');
    accepted({ ...c, state: 'ongoing' as const }, 'peer', 'x');
    expect(store.get('call-2')).toMatchObject({ phase: 'ended', end_reason: 'no_answer' });
  });

  describe('group calls', () => {
    const groupCall = (fields: Partial<CallReply> = {}) =>
      call({
        call_id: 'g-call',
        conversation_id: 'group_g',
        caller_user_id: 'owner',
        participants: [
          { user_id: 'owner', role: 'caller', state: 'joined', in_room: true, joined_at: 1, left_at: null },
          { user_id: 'me', role: 'callee', state: 'invited', in_room: false, joined_at: null, left_at: null },
          { user_id: 'other', role: 'callee', state: 'invited', in_room: false, joined_at: null, left_at: null },
        ],
        ...fields,
      });

    it('keeps ringing for the user when someone else answers', () => {
      const c = groupCall();
      invited(c);
      accepted({ ...withParticipant(c, 'other', { state: 'joined' }), state: 'ongoing' as const }, 'other', 'd');
      expect(store.get('g-call')?.phase).toBe('incoming');
    });

    it('ends for the user who declined while the call goes on', () => {
      const c = groupCall({ state: 'ongoing' as const });
      invited(c);
      deps.event('call.rejected', {
        call: wire(withParticipant(c, 'me', { state: 'declined' })),
        user_id: 'me',
        reason: 'decline',
        ...own,
      });
      expect(store.get('g-call')).toMatchObject({ phase: 'ended', end_reason: 'rejected' });
    });

    it('ends as left for the user who hung up, or was dropped, while the call goes on', () => {
      const c = withParticipant(groupCall({ state: 'ongoing' as const }), 'me', { state: 'joined' });
      invited(c);
      accepted(c, 'me', 'dev-here');
      expect(store.get('g-call')?.phase).toBe('ongoing');
      deps.event('call.participant_left', {
        call: wire(withParticipant(c, 'me', { state: 'left' })),
        user_id: 'me',
        ...own,
      });
      expect(store.get('g-call')).toMatchObject({ phase: 'ended', end_reason: 'left' });
    });
  });

  describe('recovery', () => {
    it('takes in the live calls and reads how the others it held ended', async () => {
      invited(incomingCall('held'));
      deps.sdk('recover', { reasons: ['connection.ready'] });
      expect(deps.actives).toHaveLength(1);
      deps.actives[0].answer({ calls: [incomingCall('missed-while-away')] });
      await settle();
      expect(store.get('missed-while-away')?.phase).toBe('incoming');
      expect(deps.gets.map((g) => g.callId)).toEqual(['held']);
      deps.gets[0].answer({ ...incomingCall('held'), state: 'ended' as const, end_reason: 'canceled' });
      await settle();
      expect(store.get('held')).toMatchObject({ phase: 'ended', end_reason: 'canceled' });
      expect(store.incoming?.call_id).toBe('missed-while-away');
    });

    it('lets no older reply undo an event that came meanwhile', async () => {
      const c = incomingCall();
      invited(c);
      deps.sdk('recover', { reasons: ['foreground'] });
      ended(c, 'canceled');
      deps.actives[0].answer({ calls: [c] });
      await settle();
      expect(store.get('call-1')).toMatchObject({ phase: 'ended', end_reason: 'canceled' });
    });
  });

  it('keeps the newest ended calls only, and drops one on dismiss', () => {
    for (let i = 0; i < ENDED_CALLS_KEPT + 2; i += 1)
      ended(call({ call_id: `old-${i}`, started_at: 1_000 + i }), 'no_answer');
    invited(incomingCall());
    const calls = store.getSnapshot().calls;
    expect(calls).toHaveLength(ENDED_CALLS_KEPT + 1);
    expect(calls[0].call_id).toBe('call-1');
    expect(store.get('old-0')).toBeUndefined();
    store.dismiss('old-21');
    expect(store.get('old-21')).toBeUndefined();
    store.dismiss('call-1');
    expect(store.get('call-1')).toBeDefined();
  });

  it('forgets everything at reset, and a reply still on its way', async () => {
    invited(incomingCall());
    deps.sdk('recover', { reasons: ['login'] });
    store.reset();
    deps.actives[0].answer({ calls: [incomingCall('late')] });
    await settle();
    expect(store.getSnapshot()).toEqual({ calls: [], active: null, incoming: null });
  });
});
