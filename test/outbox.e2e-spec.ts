import { OutboxRepository } from '../src/outbox/outbox.repository';
import { Seed } from './helpers/seed';
import { TestApp, bearer, issueUser, startTestApp } from './helpers/test-app';

describe('outbox delivery order (what the real-time gateway resumes from)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('lists a user\'s events in position order, with private state, and resumes after any position', async () => {
    const alice = await issueUser(t);
    const bob = await issueUser(t);
    await new Seed(t).friends(alice.id, bob.id);
    const toBob = `friend_${Buffer.from(bob.userId).toString('base64url')}`;
    const sent: string[] = [];
    for (let i = 0; i < 3; i++) {
      const reply = await t.http.post('/app/sdk/messages/send').set(...bearer(alice.token)).send({ conversation_id: toBob, client_message_id: `o-${i}`, type: 'text', content: { text: `m${i}` } });
      expect(reply.body.code).toBe(0);
      sent.push(reply.body.data.event_id as string);
    }
    const outbox = t.app.get(OutboxRepository);
    const all = await outbox.listForUser(bob.id, '0', 100);
    expect(all.map((e) => e.eventId)).toEqual(sent);
    expect(all.every((e) => e.type === 'message.new')).toBe(true);
    expect(all.map((e) => e.private)).toEqual([1, 2, 3].map((unread) => ({ conversation_id: `friend_${Buffer.from(alice.userId).toString('base64url')}`, unread })));
    const positions = all.map((e) => BigInt(e.position));
    expect([...positions].sort((a, b) => (a < b ? -1 : 1))).toEqual(positions);
    const resumed = await outbox.listForUser(bob.id, all[0].position, 100);
    expect(resumed.map((e) => e.eventId)).toEqual(sent.slice(1));
    expect(await outbox.listForUser(bob.id, all[2].position, 100)).toEqual([]);
  });
});
