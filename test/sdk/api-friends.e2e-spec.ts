// client.friends against the service: every method once, the replies' fields, and refusals as
// typed errors. The spec leaves the friends endpoints' paths and shapes unstated (4.6); the
// codes are the spec's (7): 1204 profile inaccessible, 1205 request inaccessible, 1211
// relationship restricted.
import { friendCid } from '../helpers/api-client';
import { useSdkApp } from './sdk-harness';
import { REFUSED, refusal, sdkUser } from './api-kit';

describe('Web SDK: client.friends', () => {
  const app = useSdkApp();

  it('sends a request (a retry answers it again), lists it on both sides, accepts it (again: 1206), lists and removes the friend', async () => {
    const [alice, bob] = [await sdkUser(app), await sdkUser(app)];
    const sent = await alice.c.friends.sendRequest(bob.userId, { message: 'hello', request_id: 'fr-1' });
    expect(sent).toEqual({
      request: expect.objectContaining({
        id: expect.stringMatching(/^[1-9][0-9]*$/),
        request_id: 'fr-1',
        message: 'hello',
        status: 'pending',
        from: expect.objectContaining({ user_id: alice.userId, id: alice.id }),
        to: expect.objectContaining({ user_id: bob.userId, id: bob.id }),
      }),
      friend: null,
      event_id: expect.any(String),
    });
    const retried = await alice.c.friends.sendRequest(bob.userId, { message: 'hello', request_id: 'fr-1' });
    expect({ id: retried.request.id, event_id: retried.event_id }).toEqual({ id: sent.request.id, event_id: null });
    // The SDK makes the idempotency key when the app gives none.
    const carol = await sdkUser(app);
    const keyed = await carol.c.friends.sendRequest(bob.userId);
    expect(keyed.request).toMatchObject({ request_id: expect.stringMatching(/^[A-Za-z0-9._:-]{1,64}$/), message: '' });

    const incoming = await bob.c.friends.listRequests('incoming', { status: 'pending' });
    expect(incoming.items.map((r) => r.id).sort()).toEqual([sent.request.id, keyed.request.id].sort());
    expect({ has_more: incoming.has_more, next_cursor: incoming.next_cursor }).toEqual({
      has_more: false,
      next_cursor: null,
    });
    expect((await alice.c.friends.listRequests('outgoing')).items).toEqual([
      expect.objectContaining({ id: sent.request.id, status: 'pending' }),
    ]);

    const accepted = await bob.c.friends.acceptRequest(sent.request.id);
    expect(accepted).toEqual({
      friend: {
        user: expect.objectContaining({ user_id: alice.userId }),
        conversation_id: friendCid(alice),
        since: expect.any(Number),
      },
      event_id: expect.any(String),
    });
    // Accepting again: already friends (1206, "converge to the existing relationship") is checked first.
    expect(await refusal(bob.c.friends.acceptRequest(sent.request.id))).toEqual(REFUSED(1206));
    expect((await bob.c.friends.listRequests('incoming', { status: 'accepted' })).items).toEqual([
      expect.objectContaining({ id: sent.request.id, status: 'accepted' }),
    ]);

    const friends = await alice.c.friends.list();
    expect(friends).toEqual({
      items: [
        {
          user: expect.objectContaining({ user_id: bob.userId }),
          conversation_id: friendCid(bob),
          since: accepted.friend.since,
        },
      ],
      next_cursor: null,
      has_more: false,
    });
    expect(await alice.c.friends.remove(bob.userId)).toEqual({ event_id: expect.any(String) });
    expect((await bob.c.friends.list()).items).toEqual([]);
    expect(await refusal(alice.c.friends.remove(bob.userId))).toEqual(REFUSED(1204));
  });

  it('rejects a request; only its receiver may, and only while it is pending', async () => {
    const [alice, bob] = [await sdkUser(app), await sdkUser(app)];
    const { request } = await alice.c.friends.sendRequest(bob.userId);
    expect(await refusal(alice.c.friends.rejectRequest(request.id))).toEqual(REFUSED(1205));
    const rejected = await bob.c.friends.rejectRequest(request.id);
    expect(rejected).toEqual({
      request: expect.objectContaining({ id: request.id, status: 'rejected', updated_at: expect.any(Number) }),
      event_id: expect.any(String),
    });
    expect(await refusal(bob.c.friends.rejectRequest(request.id))).toEqual(REFUSED(1205));
    expect((await alice.c.friends.listRequests('outgoing', { status: 'rejected' })).items).toEqual([
      expect.objectContaining({ id: request.id }),
    ]);
    expect((await alice.c.friends.listRequests('outgoing', { status: 'pending' })).items).toEqual([]);
  });

  it('blocks and unblocks (idempotent), lists blocks, and a blocked user cannot ask', async () => {
    const [alice, bob] = [await sdkUser(app), await sdkUser(app)];
    expect(await alice.c.friends.block(bob.userId)).toEqual({ blocked: true, event_id: expect.any(String) });
    expect(await alice.c.friends.block(bob.userId)).toEqual({ blocked: true, event_id: null });
    expect(await alice.c.friends.listBlocks()).toEqual({
      items: [{ user: expect.objectContaining({ user_id: bob.userId }), since: expect.any(Number) }],
      next_cursor: null,
      has_more: false,
    });
    expect(await refusal(bob.c.friends.sendRequest(alice.userId))).toEqual(REFUSED(1211));
    expect(await refusal(alice.c.friends.sendRequest(bob.userId))).toEqual(REFUSED(1211));
    expect(await alice.c.friends.unblock(bob.userId)).toEqual({ blocked: false, event_id: expect.any(String) });
    expect(await alice.c.friends.unblock(bob.userId)).toEqual({ blocked: false, event_id: null });
    expect((await alice.c.friends.listBlocks()).items).toEqual([]);
    expect((await bob.c.friends.sendRequest(alice.userId)).request.status).toBe('pending');
  });

  it('sends the cursor (a forged one is refused with 1004), and a request to oneself is 1004', async () => {
    const alice = await sdkUser(app);
    const page = await alice.c.friends.list({ cursor: undefined });
    expect(page.items).toEqual([]);
    expect(await refusal(alice.c.friends.listBlocks({ cursor: 'not-a-cursor' }))).toEqual(REFUSED(1004));
    expect(await refusal(alice.c.friends.sendRequest(alice.userId))).toEqual(REFUSED(1004));
  });
});
