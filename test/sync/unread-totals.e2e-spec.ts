// The one-to-one unread aggregate is kept per user in user_unread_totals instead of summed on
// each sync. It must always equal the sum over the user's one-to-one member rows, whatever
// changes them (sends, reads, recalls, deletes, mute and unmute), also when they run at once.
import { DataSource } from 'typeorm';
import { TestApp, startTestApp } from '../helpers/test-app';
import { ApiClient, IssuedUser, friendCid } from '../helpers/api-client';
import { directTotals } from '../helpers/assertions';

describe('one-to-one unread totals', () => {
  let t: TestApp;
  let api: ApiClient;
  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
  });
  afterAll(() => t.close());

  const cid = friendCid;
  const send = async (from: IssuedUser, to: IssuedUser): Promise<string> =>
    (await api.send(from, cid(to), 'x')).message.mid;

  /** Stored totals (which no endpoint shows) and the sums they stand for, plus what /unread and /sync answer. */
  async function check(u: IssuedUser, expected: { total: number; unmuted: number }): Promise<void> {
    const { stored, sums } = await directTotals(t.app.get(DataSource), u.id);
    expect(stored).toEqual(sums);
    expect(sums).toEqual(expected);
    const unread = await api.unread(u);
    expect({ total: unread.total, unmuted: unread.total_unmuted }).toEqual(expected);
    const synced = await api.sync(u);
    expect({ total: synced.unread.total, unmuted: synced.unread.total_unmuted }).toEqual(expected);
  }

  it('follows sends, reads, recalls, deletes, mute and unmute', async () => {
    const [me, a, b] = await api.users(3);
    await api.befriend(me, a);
    await api.befriend(me, b);
    await check(me, { total: 0, unmuted: 0 });

    const fromA = [await send(a, me), await send(a, me), await send(a, me)];
    await send(b, me);
    await send(me, a); // my own message never counts for me
    await check(me, { total: 4, unmuted: 4 });

    await api.setting(me, 'mute', cid(a), true);
    await check(me, { total: 4, unmuted: 1 });
    await send(a, me);
    await check(me, { total: 5, unmuted: 1 });
    await api.recall(a, cid(me), fromA[0]);
    await check(me, { total: 4, unmuted: 1 });
    // Muting again is answered without a change (no event, totals untouched).
    expect((await api.setting(me, 'mute', cid(a), true)).event_id).toBeNull();
    await check(me, { total: 4, unmuted: 1 });

    await api.read(me, cid(a), '2');
    await check(me, { total: 3, unmuted: 1 });
    await api.setting(me, 'mute', cid(a), false);
    await check(me, { total: 3, unmuted: 3 });
    await api.deleteMessage(a, cid(me), fromA[2]);
    await check(me, { total: 2, unmuted: 2 });
    // A message already read no longer counts, so recalling it changes nothing.
    await api.recall(a, cid(me), fromA[1]);
    await check(me, { total: 2, unmuted: 2 });

    await api.read(me, cid(b), '1');
    await api.read(me, cid(a), '5');
    await check(me, { total: 0, unmuted: 0 });
    // The peers' own totals followed too: each has my one unread message, or none.
    await check(a, { total: 1, unmuted: 1 });
    await check(b, { total: 0, unmuted: 0 });
  });

  it('stays exact under concurrent sends, reads and mute changes to one user', async () => {
    const hub = await api.user();
    const peers = await api.users(6);
    for (const peer of peers) await api.befriend(hub, peer);
    // The peers' first messages arrive before the race, so every read below has something to read.
    for (const peer of peers.slice(3)) await send(peer, hub);
    const work: Array<Promise<unknown>> = [];
    for (const peer of peers) {
      for (let i = 0; i < 8; i += 1) work.push(send(peer, hub));
      work.push(send(hub, peer));
    }
    const answers: Array<Promise<number>> = [];
    for (let i = 0; i < 6; i += 1) {
      answers.push(
        api.raw
          .setting(hub, 'mute', { conversation_id: cid(peers[i % 3]), muted: i % 2 === 0 })
          .then((r) => r.body.code as number),
      );
      answers.push(api.raw.read(hub, cid(peers[3 + (i % 3)]), '1').then((r) => r.body.code as number));
    }
    await Promise.all(work);
    expect(await Promise.all(answers)).toEqual(Array(12).fill(0));
    // Reads racing the sends: each reads up to whatever its conversation holds by then.
    const reads = await Promise.all(peers.slice(3).map((peer) => api.raw.read(hub, cid(peer), '5')));
    expect(reads.map((r) => r.body.code)).toEqual([0, 0, 0]);
    // Whatever the interleaving, the stored totals equal the sums (check compares them first).
    const { sums } = await directTotals(t.app.get(DataSource), hub.id);
    expect(sums.total).toBeGreaterThan(0);
    await check(hub, sums);
    for (const peer of peers) await check(peer, { total: 1, unmuted: 1 });
    // Concurrency only means something on MySQL: SQLite runs transactions one at a time.
  });
});
