import type { MetricsService } from '../metrics/metrics.service';
import type { SequencedEvent } from '../outbox/deliverable-event';
import { DeliveryHub } from './delivery-hub';
import { PositionTokens } from './position-token';
import type { SocketSession } from './socket-session';

const event = (position: number, userId = 'u1'): SequencedEvent => ({
  position: String(position),
  eventId: `e${position}`,
  type: 'friend.unblocked',
  payload: { user_id: `x${position}` },
  createdAt: 1,
  recipients: [{ userId, private: null }],
});

/** A database whose reads of (after, upTo] wait until the test releases them. */
function heldDatabase() {
  const held: Array<() => void> = [];
  const sequence = {
    sequencedBetween: async (after: string, upTo: string): Promise<SequencedEvent[]> => {
      await new Promise<void>((resolve) => held.push(resolve));
      const events: SequencedEvent[] = [];
      for (let p = Number(after) + 1; p <= Number(upTo); p++) events.push(event(p));
      return events;
    },
  };
  return { sequence, release: () => held.shift()?.() };
}

const metrics = {
  realtimeDeliveries: { labels: () => ({ inc: () => undefined }) },
  realtimeSockets: { set: () => undefined },
} as unknown as MetricsService;
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

function socketOf(userId: string, cursor: bigint) {
  const received: string[] = [];
  const session = {
    user: { internalId: userId },
    live: true,
    cursor,
    pending: [],
    // What the hub writes is socket.io's frame: `2["type",{envelope}]`.
    socket: {
      conn: {
        readyState: 'open',
        write: (frame: string) =>
          received.push((JSON.parse(frame.slice(1)) as [string, { event_id: string }])[1].event_id),
      },
    },
  };
  return { session: session as unknown as SocketSession, received };
}

describe('DeliveryHub', () => {
  it('delivers every position once and in order when a head rises while a read is in flight', async () => {
    const { sequence, release } = heldDatabase();
    const hub = new DeliveryHub(sequence, new PositionTokens(Buffer.alloc(32)), metrics);
    const { session, received } = socketOf('u1', 100n);
    hub.start('100');
    hub.add(session);
    hub.advance('105');
    // While that read runs, this instance sequences 106..110 in memory.
    hub.accept({ after: '105', upTo: '110', events: [106, 107, 108, 109, 110].map((p) => event(p)) });
    release();
    await settle();
    release();
    await settle();
    hub.advance('111');
    release();
    await settle();
    expect(received).toEqual([101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111].map((p) => `e${p}`));
    expect(hub.position).toBe(111n);
  });

  it('hands a batch that continues where it stands straight from memory, to the recipients only', () => {
    const { sequence } = heldDatabase();
    const hub = new DeliveryHub(sequence, new PositionTokens(Buffer.alloc(32)), metrics);
    const mine = socketOf('u1', 10n);
    const other = socketOf('u2', 10n);
    hub.start('10');
    hub.add(mine.session);
    hub.add(other.session);
    hub.accept({ after: '10', upTo: '12', events: [event(11), event(12, 'u2')] });
    expect(mine.received).toEqual(['e11']);
    expect(other.received).toEqual(['e12']);
  });

  it('keeps events for a socket still replaying, and never emits at or below its cursor', () => {
    const { sequence } = heldDatabase();
    const hub = new DeliveryHub(sequence, new PositionTokens(Buffer.alloc(32)), metrics);
    const replaying = socketOf('u1', 10n);
    (replaying.session as { live: boolean }).live = false;
    const ahead = socketOf('u1', 11n);
    hub.start('10');
    hub.add(replaying.session);
    hub.add(ahead.session);
    hub.accept({ after: '10', upTo: '12', events: [event(11), event(12)] });
    expect(replaying.received).toEqual([]);
    expect(replaying.session.pending.map((p) => p.position)).toEqual([11n, 12n]);
    expect(ahead.received).toEqual(['e12']);
  });
});
