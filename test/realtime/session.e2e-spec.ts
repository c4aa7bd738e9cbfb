// Black-box tests of a live connection's credential, written from issue 11's contract and spec
// 5.7 / 4.7 rule 7: auth.renew {token} with an acknowledgement {code, msg} (same user: replaced;
// another user: 1102 and the old identity stays; invalid 1102, expired 1103, nothing changes);
// session.expired {code: 1103} at the token's expiry and session.revoked {code: 1003|1102} within
// AUTH_CACHE_MS when the user is disabled or their tokens are revoked, each followed by a
// disconnect. Both are control events: the envelope with position null.
//
// The server's expiry timer runs on real time (a TestClock jump alone does not fire it), so a
// token that expires a few real seconds from now is made by issuing it with the clock set back.
import { randomBytes } from 'node:crypto';
import { Seed } from '../helpers/factories';
import { connect, envelopeKeys, fence, listen, refusal, RtClient, sleep, waitForDisconnect } from '../helpers/realtime';
import {
  bearer,
  friendConversationId,
  hostAuth,
  IssuedUser,
  issueUser,
  startTestApp,
  TestApp,
} from '../helpers/test-app';

const TTL_SECONDS = 60;

describe('real-time session: renewal, expiry, revocation (contract)', () => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await startTestApp({ TOKEN_TTL_SECONDS: String(TTL_SECONDS) });
    url = await listen(t);
  });
  afterAll(() => t.close());

  const send = async (from: IssuedUser, to: IssuedUser): Promise<string> => {
    const r = await t.http
      .post('/app/sdk/messages/send')
      .set(...bearer(from.token))
      .send({
        conversation_id: friendConversationId(to),
        client_message_id: `c-${randomBytes(6).toString('hex')}`,
        type: 'text',
        content: { text: 'hi' },
      });
    expect(r.body.code).toBe(0);
    return r.body.data.event_id as string;
  };
  async function friends(): Promise<{ alice: IssuedUser; bob: IssuedUser }> {
    const alice = await issueUser(t);
    const bob = await issueUser(t);
    await new Seed(t).friends(alice.id, bob.id);
    return { alice, bob };
  }
  /** A new token for the same user (a later iat, so a different token). */
  async function reissue(u: IssuedUser): Promise<IssuedUser> {
    t.clock.advance(1000);
    return issueUser(t, { user_id: u.userId });
  }
  /** A token of `u` that expires `seconds` (real) seconds from now: issued with the clock set back. */
  async function expiringIn(u: IssuedUser, seconds: number): Promise<IssuedUser> {
    const back = (TTL_SECONDS - seconds) * 1000;
    t.clock.advance(-back);
    try {
      return await issueUser(t, { user_id: u.userId });
    } finally {
      t.clock.advance(back);
    }
  }
  const ackOk = { code: 0, msg: expect.any(String) };

  describe('auth.renew', () => {
    it('same user: {code: 0}; the connection stays and the new credential governs expiry', async () => {
      const { alice, bob } = await friends();
      const short = await expiringIn(bob, 4);
      const b = await connect(url, { auth: { token: short.token } });
      const fresh = await reissue(bob);
      expect(await b.request('auth.renew', { token: fresh.token })).toEqual(expect.objectContaining(ackOk));
      expect(b.socket.connected).toBe(true);
      await b.waitForEvent(await send(alice, bob));
      // Past the first token's expiry: no session.expired, still connected, still receiving.
      await sleep(6500);
      expect(b.of('session.expired')).toEqual([]);
      expect(b.socket.connected).toBe(true);
      await b.waitForEvent(await send(alice, bob));
      b.close();
    }, 20_000);

    it("another user's token: 1102, and the connection keeps the old identity", async () => {
      const { alice, bob } = await friends();
      const { alice: dave, bob: carol } = await friends();
      const b = await connect(url, { auth: { token: bob.token } });
      const reply = await b.request('auth.renew', { token: carol.token });
      expect(reply).toEqual(expect.objectContaining({ code: 1102, msg: expect.any(String) }));
      expect(b.socket.connected).toBe(true);
      const toCarol = await send(dave, carol);
      await b.waitForEvent(await send(alice, bob));
      await fence(t, bob, [b]);
      expect(b.events.map((e) => e.event_id)).not.toContain(toCarol);
      // Carol's own connection is unaffected.
      const c = await connect(url, { auth: { token: carol.token } });
      await c.waitForEvent(await send(dave, carol));
      b.close();
      c.close();
    });

    it('an invalid token answers 1102 and an expired one 1103; nothing changes', async () => {
      const { alice, bob } = await friends();
      const b = await connect(url, { auth: { token: bob.token } });
      expect(await b.request('auth.renew', { token: 'garbage' })).toEqual(
        expect.objectContaining({ code: 1102, msg: expect.any(String) }),
      );
      const [head, body] = bob.token.split('.');
      expect(await b.request('auth.renew', { token: `${head}.${body}.AAAA` })).toEqual(
        expect.objectContaining({ code: 1102 }),
      );
      const expired = await expiringIn(bob, -5);
      expect(await b.request('auth.renew', { token: expired.token })).toEqual(
        expect.objectContaining({ code: 1103, msg: expect.any(String) }),
      );
      expect(b.socket.connected).toBe(true);
      await b.waitForEvent(await send(alice, bob));
      // And a valid renewal still works afterwards.
      expect(await b.request('auth.renew', { token: (await reissue(bob)).token })).toEqual(
        expect.objectContaining(ackOk),
      );
      await b.waitForEvent(await send(alice, bob));
      b.close();
    });
  });

  describe('expiry', () => {
    it("emits session.expired {code: 1103} (position null) at the token's expiry, then disconnects", async () => {
      const { alice, bob } = await friends();
      const short = await expiringIn(bob, 3);
      const devices = [
        await connect(url, { auth: { token: short.token } }),
        await connect(url, { auth: { token: short.token } }),
      ];
      const other = await connect(url, { auth: { token: alice.token } });
      for (const d of devices) {
        const expired = await d.waitFor(() => d.of('session.expired')[0], 20_000, 'session.expired');
        expect(envelopeKeys(expired)).toEqual(['created_at', 'data', 'event_id', 'position', 'type']);
        expect(expired).toMatchObject({
          type: 'session.expired',
          position: null,
          event_id: expect.any(String),
          created_at: expect.any(Number),
          data: { code: 1103 },
        });
        await waitForDisconnect(d, 10_000);
      }
      expect(other.socket.connected).toBe(true);
      expectRefusalCode(await refusal(url, { auth: { token: short.token } }), 1103);
      other.close();
    }, 60_000);
  });

  describe('revocation', () => {
    it('disabling a user sends session.revoked {code: 1003} to every device and disconnects them within AUTH_CACHE_MS', async () => {
      const { alice, bob } = await friends();
      const devices: RtClient[] = [
        await connect(url, { auth: { token: bob.token } }),
        await connect(url, { auth: { token: bob.token }, transports: ['polling'] }),
      ];
      const bystander = await connect(url, { auth: { token: alice.token } });
      expect(
        (
          await t.http
            .post('/app/sdk/users/status')
            .set(...hostAuth())
            .send({ user_id: bob.userId, disabled: true })
        ).body.code,
      ).toBe(0);
      for (const d of devices) {
        const revoked = await d.waitFor(() => d.of('session.revoked')[0], 15_000, 'session.revoked');
        expect(revoked).toMatchObject({
          type: 'session.revoked',
          position: null,
          event_id: expect.any(String),
          data: { code: 1003 },
        });
        await waitForDisconnect(d, 10_000);
      }
      expect(bystander.socket.connected).toBe(true);
      expect(bystander.of('session.revoked')).toEqual([]);
      expectRefusalCode(await refusal(url, { auth: { token: bob.token } }), 1003);
      bystander.close();
    });

    it("revoking a user's tokens sends session.revoked {code: 1102} and disconnects; a new token connects", async () => {
      const { alice, bob } = await friends();
      const b = await connect(url, { auth: { token: bob.token } });
      const a = await connect(url, { auth: { token: alice.token } });
      expect(
        (
          await t.http
            .post('/app/sdk/users/revoke-tokens')
            .set(...hostAuth())
            .send({ user_id: bob.userId })
        ).body.code,
      ).toBe(0);
      const revoked = await b.waitFor(() => b.of('session.revoked')[0], 15_000, 'session.revoked');
      expect(revoked).toMatchObject({ type: 'session.revoked', position: null, data: { code: 1102 } });
      await waitForDisconnect(b, 10_000);
      expect(a.socket.connected).toBe(true);
      expectRefusalCode(await refusal(url, { auth: { token: bob.token } }), 1102);
      const fresh = await reissue(bob);
      const again = await connect(url, { auth: { token: fresh.token } });
      await again.waitForEvent(await send(alice, bob));
      a.close();
      again.close();
    });

    it('a connection renewed to a token that is then revoked is revoked too', async () => {
      const { bob } = await friends();
      const b = await connect(url, { auth: { token: bob.token } });
      expect(await b.request('auth.renew', { token: (await reissue(bob)).token })).toEqual(
        expect.objectContaining(ackOk),
      );
      expect(
        (
          await t.http
            .post('/app/sdk/users/revoke-tokens')
            .set(...hostAuth())
            .send({ user_id: bob.userId })
        ).body.code,
      ).toBe(0);
      const revoked = await b.waitFor(() => b.of('session.revoked')[0], t.config.authCacheMs + 3000, 'session.revoked');
      expect(revoked.data).toEqual({ code: 1102 });
      await waitForDisconnect(b, 2000);
    });
  });
});

function expectRefusalCode(data: { code: number } | undefined, code: number): void {
  expect(data?.code).toBe(code);
}
