import { Decoder, Encoder, PacketType } from 'socket.io-parser';
import type { DurableEventType } from '../contract/events';
import type { PrivatePart, SharedPart } from '../outbox/deliverable-event';
import { DurableEventFrame, replayFrame } from './event-frame';

const TOKEN = '2s.lk3f0h0w.AbCdEfGhIjKlMnOp';

/** What socket.io's own emit(type, envelope) writes on the main namespace. */
function emitted(type: string, envelope: unknown): string {
  const [frame] = new Encoder().encode({ type: PacketType.EVENT, nsp: '/', data: [type, envelope] }) as string[];
  return frame;
}

function decoded(frame: string): unknown {
  const decoder = new Decoder();
  let packet: unknown;
  decoder.on('decoded', (p: unknown) => (packet = p));
  decoder.add(frame);
  return packet;
}

function expectSameAsEmit<T extends DurableEventType>(
  type: T,
  payload: SharedPart<T>,
  part: PrivatePart<T> | null,
  envelope: { event_id: string; type: T; position: string; created_at: number; data: object },
): void {
  const frame = new DurableEventFrame({ eventId: 'e-1', type, createdAt: 1_700_000_000_123, payload }, 77n);
  const text = frame.for(part).text(TOKEN);
  expect(decoded(text)).toEqual(decoded(emitted(type, envelope)));
  expect(text).toBe(emitted(type, envelope));
}

const message = {
  message_id: 'm1',
  seq: '5',
  sender_id: 'alice',
  type: 'text',
  content: { text: 'héllo "quoted" \u2028 </script>' },
  created_at: 1,
  status: 'normal',
} as unknown as SharedPart<'message.new'>['message'];

describe('DurableEventFrame', () => {
  it('writes a shared event as socket.io writes its envelope, the same frame for every recipient', () => {
    const payload = { message, by: 'alice', conversation_id: 'g_1', unread: null };
    const frame = new DurableEventFrame(
      { eventId: 'e-1', type: 'message.new', createdAt: 1_700_000_000_123, payload },
      77n,
    );
    expect(frame.for(null)).toBe(frame.for(null));
    expectSameAsEmit('message.new', payload, null, {
      event_id: 'e-1',
      type: 'message.new',
      position: TOKEN,
      created_at: 1_700_000_000_123,
      data: payload,
    });
  });

  it('merges a private part into the shared one, as the spread { ...shared, ...private }', () => {
    const payload = { message, by: 'alice' };
    const part = { conversation_id: 'c_bob', unread: 3 };
    expectSameAsEmit('message.new', payload, part, {
      event_id: 'e-1',
      type: 'message.new',
      position: TOKEN,
      created_at: 1_700_000_000_123,
      data: { ...payload, ...part },
    });
  });

  it('writes only the private part when the shared part is empty', () => {
    const part = { conversation_id: 'c_bob', read_seq: '9', unread: 0 };
    expectSameAsEmit('conversation.read', {}, part, {
      event_id: 'e-1',
      type: 'conversation.read',
      position: TOKEN,
      created_at: 1_700_000_000_123,
      data: { ...part },
    });
  });

  it('lets a private key replace a shared one of the same name', () => {
    const payload = { message, by: 'alice', conversation_id: 'shared', unread: null };
    const part = { conversation_id: 'c_bob', unread: 2 };
    const frame = new DurableEventFrame({ eventId: 'e-1', type: 'message.new', createdAt: 5, payload }, 1n);
    const [, envelope] = (decoded(frame.for(part).text(TOKEN)) as { data: [string, { data: unknown }] }).data;
    expect(envelope.data).toEqual({ ...payload, ...part });
  });

  it('frames a replayed event with its position and time', () => {
    const own = replayFrame({
      position: '42',
      eventId: 'e-2',
      type: 'call.ended',
      payload: { call: { call_id: 'k' } as unknown as SharedPart<'call.ended'>['call'], reason: 'hangup' },
      private: { conversation_id: 'c_x' },
      createdAt: 9,
    });
    expect(own.position).toBe(42n);
    expect(own.createdAt).toBe(9);
    const [type, envelope] = (decoded(own.text(TOKEN)) as { data: [string, Record<string, unknown>] }).data;
    expect(type).toBe('call.ended');
    expect(envelope).toEqual({
      event_id: 'e-2',
      type: 'call.ended',
      position: TOKEN,
      created_at: 9,
      data: { call: { call_id: 'k' }, reason: 'hangup', conversation_id: 'c_x' },
    });
  });
});
