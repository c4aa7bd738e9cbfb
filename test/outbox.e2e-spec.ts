import { DataSource } from 'typeorm';
import { listDelivered } from './helpers/outbox';
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
    const all = await listDelivered(t, bob.id, '0', 100);
    expect(all.map((e) => e.eventId)).toEqual(sent);
    expect(all.every((e) => e.type === 'message.new')).toBe(true);
    expect(all.map((e) => e.private)).toEqual([1, 2, 3].map((unread) => ({ conversation_id: `friend_${Buffer.from(alice.userId).toString('base64url')}`, unread })));
    const positions = all.map((e) => BigInt(e.position));
    expect([...positions].sort((a, b) => (a < b ? -1 : 1))).toEqual(positions);
    const resumed = await listDelivered(t, bob.id, all[0].position, 100);
    expect(resumed.map((e) => e.eventId)).toEqual(sent.slice(1));
    expect(await listDelivered(t, bob.id, all[2].position, 100)).toEqual([]);
  });

  it('delivers a group message event, stored once, to each member within the range they could see', async () => {
    const [owner, stays, leaves, joins] = [await issueUser(t), await issueUser(t), await issueUser(t), await issueUser(t)];
    const seed = new Seed(t);
    const publicId = `ob${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`;
    const { groupId, conversationId } = await seed.group(publicId, owner.id, [stays.id, leaves.id]);
    const send = async (text: string): Promise<string> => {
      const reply = await t.http.post('/app/sdk/messages/send').set(...bearer(owner.token)).send({ conversation_id: `group_${publicId}`, client_message_id: text, type: 'text', content: { text } });
      expect(reply.body.code).toBe(0);
      return reply.body.data.event_id as string;
    };
    const start = async (userId: string): Promise<string> => {
      const events = await listDelivered(t, userId, '0', 1000);
      return events.length ? events[events.length - 1].position : '0';
    };
    const from = { stays: await start(stays.id), leaves: await start(leaves.id), joins: await start(joins.id) };

    const before = await send('before');
    await seed.leaveGroup(groupId, conversationId, leaves.id);
    await seed.joinGroup(groupId, conversationId, joins.id);
    const after = await send('after');

    const ids = async (userId: string, position: string): Promise<string[]> => (await listDelivered(t, userId, position, 1000)).map((e) => e.eventId);
    expect(await ids(stays.id, from.stays)).toEqual([before, after]);
    expect(await ids(leaves.id, from.leaves)).toEqual([before]);
    expect(await ids(joins.id, from.joins)).toEqual([after]);
    const rows: Array<{ n: string | number }> = await t.app
      .get(DataSource)
      .query('SELECT COUNT(*) AS n FROM outbox_recipients r JOIN outbox_events e ON e.id = r.event_row_id WHERE e.event_id IN (?, ?)', [before, after]);
    expect(Number(rows[0].n)).toBe(0);

    // A recall after the leave goes to the members, not to the one who left (it would tell
    // them the group's later state), although they saw the message.
    const [beforeMessage] = await t.app.get(DataSource).query('SELECT id FROM messages WHERE event_id = ?', [before]);
    const recall = await t.http.post('/app/sdk/messages/recall').set(...bearer(owner.token)).send({ conversation_id: `group_${publicId}`, mid: String(beforeMessage.id) });
    expect(recall.body.code).toBe(0);
    const recalled = recall.body.data.event_id as string;
    expect(await ids(stays.id, from.stays)).toEqual([before, after, recalled]);
    expect(await ids(leaves.id, from.leaves)).toEqual([before]);
    expect(await ids(joins.id, from.joins)).toEqual([after]);

    // Resuming mid-way gives the rest, in position order, shared state only.
    const stayed = await listDelivered(t, stays.id, from.stays, 1000);
    expect(await ids(stays.id, stayed[0].position)).toEqual([after, recalled]);
    expect(stayed.map((e) => [e.type, e.private, (e.payload as { conversation_id: string }).conversation_id])).toEqual([
      ['message.new', null, `group_${publicId}`],
      ['message.new', null, `group_${publicId}`],
      ['message.recalled', null, `group_${publicId}`],
    ]);
    // A page of one is the next event, whichever part it comes from.
    expect((await listDelivered(t, stays.id, from.stays, 1)).map((e) => e.eventId)).toEqual([before]);
  });
});
