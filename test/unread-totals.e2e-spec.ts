// The one-to-one unread aggregate is kept per user in user_unread_totals instead of summed on
// each sync. It must always equal the sum over the user's one-to-one member rows, whatever
// changes them (sends, reads, recalls, deletes, mute and unmute), also when they run at once.
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { Seed } from './helpers/seed';
import { directTotals } from './helpers/unread-totals';
import { IssuedUser, TestApp, bearer, friendConversationId, issueUser, okData, startTestApp } from './helpers/test-app';

const data = okData;

describe('one-to-one unread totals', () => {
  let t: TestApp;
  let seed: Seed;
  beforeAll(async () => {
    t = await startTestApp();
    seed = new Seed(t);
  });
  afterAll(() => t.close());

  const cid = friendConversationId;
  const post = (u: IssuedUser, path: string, body: object) => t.http.post(path).set(...bearer(u.token)).send(body);
  const send = async (from: IssuedUser, to: IssuedUser): Promise<string> =>
    data<{ message: { mid: string } }>(await post(from, '/app/sdk/messages/send', { conversation_id: cid(to), client_message_id: randomBytes(8).toString('hex'), type: 'text', content: { text: 'x' } })).message.mid;

  /** Stored totals and the sums they stand for, plus what /unread and /sync answer. */
  async function check(u: IssuedUser, expected: { total: number; unmuted: number }): Promise<void> {
    const { stored, sums } = await directTotals(t.app.get(DataSource), u.id);
    expect(stored).toEqual(sums);
    expect(sums).toEqual(expected);
    const unread = data<{ total: number; total_unmuted: number }>(await t.http.get('/app/sdk/unread').set(...bearer(u.token)));
    expect({ total: unread.total, unmuted: unread.total_unmuted }).toEqual(expected);
    const synced = data<{ unread: { total: number; total_unmuted: number } }>(await post(u, '/app/sdk/sync', {}));
    expect({ total: synced.unread.total, unmuted: synced.unread.total_unmuted }).toEqual(expected);
  }

  it('follows sends, reads, recalls, deletes, mute and unmute', async () => {
    const me = await issueUser(t);
    const [a, b] = [await issueUser(t), await issueUser(t)];
    await seed.friends(me.id, a.id);
    await seed.friends(me.id, b.id);
    await check(me, { total: 0, unmuted: 0 });

    const fromA = [await send(a, me), await send(a, me), await send(a, me)];
    await send(b, me);
    await send(me, a); // my own message never counts for me
    await check(me, { total: 4, unmuted: 4 });

    data(await post(me, '/app/sdk/conversations/mute', { conversation_id: cid(a), muted: true }));
    await check(me, { total: 4, unmuted: 1 });
    await send(a, me);
    await check(me, { total: 5, unmuted: 1 });
    data(await post(a, '/app/sdk/messages/recall', { conversation_id: cid(me), mid: fromA[0] }));
    await check(me, { total: 4, unmuted: 1 });
    // Muting again is answered without a change (no event, totals untouched).
    expect(data<{ event_id: string | null }>(await post(me, '/app/sdk/conversations/mute', { conversation_id: cid(a), muted: true })).event_id).toBeNull();
    await check(me, { total: 4, unmuted: 1 });

    data(await post(me, '/app/sdk/messages/read', { conversation_id: cid(a), read_seq: '2' }));
    await check(me, { total: 3, unmuted: 1 });
    data(await post(me, '/app/sdk/conversations/mute', { conversation_id: cid(a), muted: false }));
    await check(me, { total: 3, unmuted: 3 });
    data(await post(a, '/app/sdk/messages/delete', { conversation_id: cid(me), mid: fromA[2] }));
    await check(me, { total: 2, unmuted: 2 });
    // A message already read no longer counts, so recalling it changes nothing.
    data(await post(a, '/app/sdk/messages/recall', { conversation_id: cid(me), mid: fromA[1] }));
    await check(me, { total: 2, unmuted: 2 });

    data(await post(me, '/app/sdk/messages/read', { conversation_id: cid(b), read_seq: '1' }));
    data(await post(me, '/app/sdk/messages/read', { conversation_id: cid(a), read_seq: '5' }));
    await check(me, { total: 0, unmuted: 0 });
    // The peers' own totals followed too: each has my one unread message, or none.
    await check(a, { total: 1, unmuted: 1 });
    await check(b, { total: 0, unmuted: 0 });
  });

  it('stays exact under concurrent sends, reads and mute changes to one user', async () => {
    const hub = await issueUser(t);
    const peers = await Promise.all(Array.from({ length: 6 }, () => issueUser(t)));
    for (const peer of peers) await seed.friends(hub.id, peer.id);
    // The peers' first messages arrive before the race, so every read below has something to read.
    for (const peer of peers.slice(3)) await send(peer, hub);
    const work: Array<Promise<unknown>> = [];
    for (const peer of peers) {
      for (let i = 0; i < 8; i += 1) work.push(send(peer, hub));
      work.push(send(hub, peer));
    }
    const answers: Array<Promise<number>> = [];
    for (let i = 0; i < 6; i += 1) {
      answers.push(post(hub, '/app/sdk/conversations/mute', { conversation_id: cid(peers[i % 3]), muted: i % 2 === 0 }).then((r) => r.body.code));
      answers.push(post(hub, '/app/sdk/messages/read', { conversation_id: cid(peers[3 + (i % 3)]), read_seq: '1' }).then((r) => r.body.code));
    }
    await Promise.all(work);
    expect(await Promise.all(answers)).toEqual(Array(12).fill(0));
    // Reads racing the sends: each reads up to whatever its conversation holds by then.
    const reads = await Promise.all(peers.slice(3).map((peer) => post(hub, '/app/sdk/messages/read', { conversation_id: cid(peer), read_seq: '5' })));
    expect(reads.map((r) => r.body.code)).toEqual([0, 0, 0]);
    // Whatever the interleaving, the stored totals equal the sums (check compares them first).
    const { sums } = await directTotals(t.app.get(DataSource), hub.id);
    expect(sums.total).toBeGreaterThan(0);
    await check(hub, sums);
    for (const peer of peers) await check(peer, { total: 1, unmuted: 1 });
    // Concurrency only means something on MySQL: SQLite runs transactions one at a time.
  });
});
