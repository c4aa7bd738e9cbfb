import type { Message } from '../../src/conversations/message';
import { visibleRange } from '../../src/conversations/visibility';
import { StoreKit, append, member, newDirect, newGroup, newUsers, send, startStoreKit } from './store-kit';

// MessageHistory: message reads, within the range the caller passes (a member's visible range).
describe('MessageHistory', () => {
  let kit: StoreKit;
  beforeAll(async () => {
    kit = await startStoreKit();
  });
  afterAll(() => kit.close());

  const now = () => kit.t.clock.now();
  const seqs = (messages: Array<{ seq: string }>) => messages.map((m) => m.seq);

  it('window: within the range, newest or oldest first, in sequence order', async () => {
    const [a, b, c] = await newUsers(kit, 3);
    const chat = await newGroup(kit, [a, b]);
    const cid = chat.conversation.id;
    for (let i = 0; i < 3; i++) await send(kit, chat, a);
    await kit.tx.run((m) => kit.store.closeMember(m, cid, b.internalId, now()));
    for (let i = 0; i < 3; i++) await send(kit, chat, a);
    await kit.tx.run((m) => kit.store.openMember(m, cid, c.internalId, now()));
    await send(kit, chat, a);
    const conversation = (await kit.store.findById(cid))!;

    const former = visibleRange(await member(kit, chat, b), conversation);
    expect(former).toEqual({ from: '0', to: '3' });
    expect(seqs(await kit.history.window(cid, former, 10, true))).toEqual(['1', '2', '3']);
    expect(seqs(await kit.history.window(cid, former, 2, true))).toEqual(['2', '3']);
    expect(seqs(await kit.history.window(cid, former, 2, false))).toEqual(['1', '2']);

    const joined = visibleRange(await member(kit, chat, c), conversation);
    expect(joined).toEqual({ from: '6', to: '7' });
    expect(seqs(await kit.history.window(cid, joined, 10, false))).toEqual(['7']);
    const all = visibleRange(await member(kit, chat, a), conversation);
    expect(seqs(await kit.history.window(cid, all, 10, false))).toEqual(['1', '2', '3', '4', '5', '6', '7']);
    expect(seqs(await kit.history.window(cid, { from: '3', to: '5' }, 10, true))).toEqual(['4', '5']);
    // An empty range (joined and left at once), and one crossing the decimal digit boundary.
    expect(await kit.history.window(cid, { from: '3', to: '3' }, 10, true)).toEqual([]);
    for (let i = 0; i < 5; i++) await send(kit, chat, a);
    expect(seqs(await kit.history.window(cid, { from: '9', to: '12' }, 10, false))).toEqual(['10', '11', '12']);
  });

  it('search: normal messages of the range whose text contains the keyword, newest first, before a mid', async () => {
    const [a, b, c] = await newUsers(kit, 3);
    const chat = await newGroup(kit, [a, b]);
    const cid = chat.conversation.id;
    const texts = ['Apple pie', 'pear', 'green APPLE', 'apple 100% fresh', 'apple_juice', 'Apple again'];
    const sent: Message[] = [];
    for (const text of texts) sent.push(await send(kit, chat, a, text));
    await kit.tx.run((m) => kit.store.closeMember(m, cid, b.internalId, now()));
    await kit.tx.run((m) => kit.store.openMember(m, cid, c.internalId, now()));
    const late = await send(kit, chat, a, 'apple after c joined');
    // A recalled message is not found.
    await kit.tx.run((m) =>
      kit.store.tombstoneMessage(m, {
        conversation: chat.conversation,
        idFor: chat.idFor,
        actor: a,
        message: sent[5],
        senderExternalId: a.externalId,
        to: 'recalled',
        now: now(),
      }),
    );
    const conversation = (await kit.store.findById(cid))!;
    const range = visibleRange(await member(kit, chat, a), conversation);
    const mids = (messages: Array<{ id: string }>) => messages.map((m) => m.id);

    expect(mids(await kit.history.search(cid, range, 'apple', null, 10))).toEqual([
      late.id,
      sent[4].id,
      sent[3].id,
      sent[2].id,
      sent[0].id,
    ]);
    expect(mids(await kit.history.search(cid, range, 'apple', null, 2))).toEqual([late.id, sent[4].id]);
    expect(mids(await kit.history.search(cid, range, 'apple', sent[3].id, 10))).toEqual([sent[2].id, sent[0].id]);
    // LIKE's wildcards (and the escape character) match only themselves.
    expect(mids(await kit.history.search(cid, range, '%', null, 10))).toEqual([sent[3].id]);
    expect(mids(await kit.history.search(cid, range, '_', null, 10))).toEqual([sent[4].id]);
    expect(mids(await kit.history.search(cid, range, '!', null, 10))).toEqual([]);
    // The former member finds only what they could see, the new one only what came after joining.
    const former = visibleRange(await member(kit, chat, b), conversation);
    expect(mids(await kit.history.search(cid, former, 'apple', null, 10))).toEqual([
      sent[4].id,
      sent[3].id,
      sent[2].id,
      sent[0].id,
    ]);
    const joined = visibleRange(await member(kit, chat, c), conversation);
    expect(mids(await kit.history.search(cid, joined, 'apple', null, 10))).toEqual([late.id]);
  });

  it('findBySenderClientId: the sender’s own key only', async () => {
    const [a, b] = await newUsers(kit, 2);
    const chat = await newDirect(kit, a, b);
    const mine = await append(kit, chat, a, { clientMessageId: 'c-shared-key' });
    const theirs = await append(kit, chat, b, { clientMessageId: 'c-shared-key' });
    expect((await kit.history.findBySenderClientId(a.internalId, 'c-shared-key'))?.id).toBe(mine!.id);
    expect((await kit.history.findBySenderClientId(b.internalId, 'c-shared-key'))?.id).toBe(theirs!.id);
    expect(await kit.history.findBySenderClientId(a.internalId, 'c-other-key')).toBeNull();
    // The key is unique per sender: a second append with it fails and changes nothing.
    await expect(append(kit, chat, a, { clientMessageId: 'c-shared-key' })).rejects.toThrow();
    expect(await kit.store.findById(chat.conversation.id)).toMatchObject({ lastSeq: '2' });
  });

  it('findInConversation: only the messages of that conversation', async () => {
    const [a, b, c] = await newUsers(kit, 3);
    const one = await newDirect(kit, a, b);
    const two = await newDirect(kit, a, c);
    const m1 = await send(kit, one, a);
    const m2 = await send(kit, two, a);
    const m3 = await send(kit, one, b);
    const found = await kit.history.findInConversation(one.conversation.id, [m1.id, m2.id, m3.id, '999999999999']);
    expect(found.map((m) => [m.id, m.seq, m.status]).sort()).toEqual(
      [
        [m1.id, '1', 'normal'],
        [m3.id, '2', 'normal'],
      ].sort(),
    );
    expect(found.every((m) => m.conversationId === one.conversation.id)).toBe(true);
    expect(await kit.history.findInConversation(one.conversation.id, [])).toEqual([]);
    expect((await kit.history.findById(m2.id))?.conversationId).toBe(two.conversation.id);
    expect(await kit.history.findById('999999999999')).toBeNull();
  });
});
