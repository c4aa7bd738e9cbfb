// What the outbox stores and lists per user, read through its repository (no endpoint lists it
// but the real-time gateway). Friendships and memberships come from Seed, which writes no events
// of its own, so that each user's list holds exactly the message events under test.
import { DataSource } from 'typeorm';
import { listDelivered } from '../helpers/outbox';
import { TestApp, startTestApp } from '../helpers/test-app';
import { ApiClient, friendCid, groupCid } from '../helpers/api-client';
import { Seed } from '../helpers/factories';

describe('outbox delivery order (what the real-time gateway resumes from)', () => {
  let t: TestApp;
  let api: ApiClient;
  let seed: Seed;
  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
    seed = new Seed(t);
  });
  afterAll(() => t.close());

  it("lists a user's events in position order, with private state, and resumes after any position", async () => {
    const [alice, bob] = await api.users(2);
    await seed.friends(alice.id, bob.id);
    const sent: string[] = [];
    for (let i = 0; i < 3; i++) sent.push((await api.send(alice, friendCid(bob), `m${i}`, `o-${i}`)).event_id);
    const all = await listDelivered(t, bob.id, '0', 100);
    expect(all.map((e) => e.eventId)).toEqual(sent);
    expect(all.every((e) => e.type === 'message.new')).toBe(true);
    expect(all.map((e) => e.private)).toEqual(
      [1, 2, 3].map((unread) => ({ conversation_id: friendCid(alice), unread })),
    );
    const positions = all.map((e) => BigInt(e.position));
    expect([...positions].sort((a, b) => (a < b ? -1 : 1))).toEqual(positions);
    const resumed = await listDelivered(t, bob.id, all[0].position, 100);
    expect(resumed.map((e) => e.eventId)).toEqual(sent.slice(1));
    expect(await listDelivered(t, bob.id, all[2].position, 100)).toEqual([]);
  });

  it('delivers a group message event, stored once, to each member within the range they could see', async () => {
    const [owner, stays, leaves, joins] = await api.users(4);
    const publicId = `ob${Date.now().toString(36)}${Math.floor(Math.random() * 1e6)}`;
    const { groupId, conversationId } = await seed.group(publicId, owner.id, [stays.id, leaves.id]);
    const send = (text: string) => api.send(owner, groupCid(publicId), text, text);
    const start = async (userId: string): Promise<string> => {
      const events = await listDelivered(t, userId, '0', 1000);
      return events.length ? events[events.length - 1].position : '0';
    };
    const from = { stays: await start(stays.id), leaves: await start(leaves.id), joins: await start(joins.id) };

    const { event_id: before, message: beforeMessage } = await send('before');
    await seed.leaveGroup(groupId, conversationId, leaves.id);
    await seed.joinGroup(groupId, conversationId, joins.id);
    const { event_id: after } = await send('after');

    const ids = async (userId: string, position: string): Promise<string[]> =>
      (await listDelivered(t, userId, position, 1000)).map((e) => e.eventId);
    expect(await ids(stays.id, from.stays)).toEqual([before, after]);
    expect(await ids(leaves.id, from.leaves)).toEqual([before]);
    expect(await ids(joins.id, from.joins)).toEqual([after]);
    const rows: Array<{ n: string | number }> = await t.app
      .get(DataSource)
      .query(
        'SELECT COUNT(*) AS n FROM outbox_recipients r JOIN outbox_events e ON e.id = r.event_row_id WHERE e.event_id IN (?, ?)',
        [before, after],
      );
    expect(Number(rows[0].n)).toBe(0);

    // A recall after the leave goes to the members, not to the one who left (it would tell
    // them the group's later state), although they saw the message.
    const recalled = (await api.recall(owner, groupCid(publicId), beforeMessage.mid)).event_id as string;
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
