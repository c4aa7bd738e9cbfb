// Black-box tests of the real-time handshake, written from issue 11's contract: the IM token in
// `auth.token` (never in the query), refusals as connect_error data {code, msg} with the spec's
// codes (7: 1101, 1102, 1103, 1003, 1002, 1004), connection.ready on every connect, and both
// transports.
import { sign } from 'jsonwebtoken';
import { io } from 'socket.io-client';
import { connect, envelopeKeys, listen, refusal, sleep } from '../helpers/realtime';
import { bearer, friendConversationId, hostAuth, issueUser, startTestApp, TestApp } from '../helpers/test-app';
import { Seed } from '../helpers/factories';

const TTL_SECONDS = 60;

/** A refusal is {code, msg}: the code asked for and a non-empty message. */
function expectRefusal(data: { code: number; msg: string } | undefined, code: number): void {
  expect(data).toEqual(expect.objectContaining({ code, msg: expect.any(String) }));
  expect(data!.msg.length).toBeGreaterThan(0);
}

const claimsOf = (token: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;

describe('real-time handshake (contract)', () => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await startTestApp({ TOKEN_TTL_SECONDS: String(TTL_SECONDS) });
    url = await listen(t);
  });
  afterAll(() => t.close());

  describe('refusals', () => {
    it('refuses a handshake without a token with 1101', async () => {
      expectRefusal(await refusal(url, { auth: {} }), 1101);
      expectRefusal(await refusal(url, {}), 1101);
      expectRefusal(await refusal(url, { auth: { position: 'x' } }), 1101);
      expectRefusal(await refusal(url, { auth: { token: null } }), 1101);
    });

    it('refuses a token that is not a string with 1102', async () => {
      for (const token of [123, true, {}, ['x'], ' '])
        expect({ token, code: (await refusal(url, { auth: { token } })).code }).toEqual({ token, code: 1102 });
    });

    it('refuses garbage, a tampered token and one signed with another secret with 1102', async () => {
      const u = await issueUser(t);
      expectRefusal(await refusal(url, { auth: { token: 'garbage' } }), 1102);
      expectRefusal(await refusal(url, { auth: { token: 'a.b.c' } }), 1102);
      const [head, body, signature] = u.token.split('.');
      const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
      expectRefusal(await refusal(url, { auth: { token: `${head}.${body}.${flipped}` } }), 1102);
      const forged = sign(claimsOf(u.token), 'another-secret-0123456789abcdef-0123456789', { algorithm: 'HS256' });
      expectRefusal(await refusal(url, { auth: { token: forged } }), 1102);
      // The same claims unsigned (alg none) must not pass either.
      const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${body}.`;
      expectRefusal(await refusal(url, { auth: { token: unsigned } }), 1102);
      // The genuine token still works: the refusals above were about the token, not the user.
      (await connect(url, { auth: { token: u.token } })).close();
    });

    it('refuses a token whose version was revoked with 1102; a token issued afterwards works', async () => {
      const u = await issueUser(t);
      (await connect(url, { auth: { token: u.token } })).close();
      const revoked = await t.http
        .post('/app/sdk/users/revoke-tokens')
        .set(...hostAuth())
        .send({ user_id: u.userId });
      expect(revoked.body.code).toBe(0);
      await sleep(t.config.authCacheMs + 200);
      expectRefusal(await refusal(url, { auth: { token: u.token } }), 1102);
      t.clock.advance(1000); // a new iat, so the new token differs from the old one
      const fresh = await issueUser(t, { user_id: u.userId });
      (await connect(url, { auth: { token: fresh.token } })).close();
    });

    it('refuses an expired token with 1103', async () => {
      const u = await issueUser(t);
      (await connect(url, { auth: { token: u.token } })).close();
      t.clock.advance((TTL_SECONDS + 1) * 1000);
      expectRefusal(await refusal(url, { auth: { token: u.token } }), 1103);
    });

    it('refuses a disabled user with 1003, and accepts again once re-enabled', async () => {
      const u = await issueUser(t);
      const disabled = await t.http
        .post('/app/sdk/users/status')
        .set(...hostAuth())
        .send({ user_id: u.userId, disabled: true });
      expect(disabled.body.code).toBe(0);
      await sleep(t.config.authCacheMs + 200);
      expectRefusal(await refusal(url, { auth: { token: u.token } }), 1003);
      expectRefusal(await refusal(url, { auth: { token: u.token }, transports: ['polling'] }), 1003);
      expect(
        (
          await t.http
            .post('/app/sdk/users/status')
            .set(...hostAuth())
            .send({ user_id: u.userId, disabled: false })
        ).body.code,
      ).toBe(0);
      await sleep(t.config.authCacheMs + 200);
      (await connect(url, { auth: { token: u.token } })).close();
    });

    it('refuses a `token` query parameter with 1004, alone or beside a valid auth.token, on both transports', async () => {
      const u = await issueUser(t);
      expectRefusal(await refusal(url, { query: { token: u.token } }), 1004);
      expectRefusal(await refusal(url, { auth: { token: u.token }, query: { token: u.token } }), 1004);
      expectRefusal(await refusal(url, { auth: { token: u.token }, query: { token: 'anything' } }), 1004);
      expectRefusal(
        await refusal(url, { auth: { token: u.token }, query: { token: u.token }, transports: ['polling'] }),
        1004,
      );
      // Other query parameters are not the token and do not refuse the handshake.
      (await connect(url, { auth: { token: u.token }, query: { client: 'web' } })).close();
    });

    it('answers 1002 when the SDK is switched off (SDK_ENABLED=false)', async () => {
      const off = await startTestApp({ SDK_ENABLED: 'false' });
      try {
        const offUrl = await listen(off);
        // A token the running service issued: valid in itself, refused because the SDK is off.
        const u = await issueUser(t);
        expectRefusal(await refusal(offUrl, { auth: { token: u.token } }), 1002);
        expectRefusal(await refusal(offUrl, { auth: { token: u.token }, transports: ['polling'] }), 1002);
      } finally {
        await off.close();
      }
    });

    it('refuses before connecting: no connect event, no ready, no server event', async () => {
      const socket = io(url, {
        auth: { token: 'garbage' },
        transports: ['websocket'],
        reconnection: false,
        forceNew: true,
      });
      const seen: string[] = [];
      socket.on('connect', () => seen.push('connect'));
      socket.onAny((name: string) => seen.push(name));
      const data = await new Promise<unknown>((resolve) =>
        socket.once('connect_error', (error: Error & { data?: unknown }) => resolve(error.data)),
      );
      await sleep(200);
      expect(data).toMatchObject({ code: 1102 });
      expect(socket.connected).toBe(false);
      expect(seen).toEqual([]);
      socket.disconnect();
    });
  });

  describe('connection.ready', () => {
    it('is emitted once on every connect with {event_id, position, server_time, resumed, replayed}', async () => {
      const u = await issueUser(t);
      const first = await connect(url, { auth: { token: u.token } });
      const ready = await first.waitForReady();
      expect(Object.keys(ready).sort()).toEqual(['event_id', 'position', 'replayed', 'resumed', 'server_time']);
      expect(ready).toEqual({
        event_id: expect.any(String),
        position: expect.any(String),
        server_time: expect.any(Number),
        resumed: false,
        replayed: 0,
      });
      expect(ready.event_id.length).toBeGreaterThan(0);
      expect(ready.position.length).toBeGreaterThan(0);
      expect(Number.isInteger(ready.server_time)).toBe(true);
      expect(Math.abs(ready.server_time - t.clock.now())).toBeLessThan(5000);

      // A second connection of the same user, and a reconnect of the first socket: each gets its own ready.
      const second = await connect(url, { auth: { token: u.token } });
      const ready2 = await second.waitForReady();
      first.socket.disconnect();
      first.socket.connect();
      const ready3 = await first.waitForReady(2);
      expect(ready3.resumed).toBe(false);
      expect(new Set([ready.event_id, ready2.event_id, ready3.event_id]).size).toBe(3);
      await sleep(200);
      expect(first.readies).toHaveLength(2);
      expect(second.readies).toHaveLength(1);
      first.close();
      second.close();
    });

    it('comes before live events, which carry the envelope {event_id, type, position, created_at, data}', async () => {
      const alice = await issueUser(t);
      const bob = await issueUser(t);
      await new Seed(t).friends(alice.id, bob.id);
      const b = await connect(url, { auth: { token: bob.token } });
      expect(b.arrivals[0]?.name).toBe('connection.ready');
      const sent = await t.http
        .post('/app/sdk/messages/send')
        .set(...bearer(alice.token))
        .send({
          conversation_id: friendConversationId(bob),
          client_message_id: 'hs-1',
          type: 'text',
          content: { text: 'hi' },
        });
      expect(sent.body.code).toBe(0);
      const event = await b.waitForEvent(sent.body.data.event_id as string);
      expect(envelopeKeys(event)).toEqual(['created_at', 'data', 'event_id', 'position', 'type']);
      expect(event).toMatchObject({
        name: 'message.new',
        type: 'message.new',
        position: expect.any(String),
        created_at: expect.any(Number),
      });
      b.close();
    });
  });

  describe('transports', () => {
    it('works over long polling: ready, live events and refusals', async () => {
      const alice = await issueUser(t);
      const bob = await issueUser(t);
      await new Seed(t).friends(alice.id, bob.id);
      const b = await connect(url, { auth: { token: bob.token }, transports: ['polling'] });
      expect((await b.waitForReady()).resumed).toBe(false);
      expect(b.socket.io.engine.transport.name).toBe('polling');
      const sent = await t.http
        .post('/app/sdk/messages/send')
        .set(...bearer(alice.token))
        .send({
          conversation_id: friendConversationId(bob),
          client_message_id: 'poll-1',
          type: 'text',
          content: { text: 'over polling' },
        });
      const event = await b.waitForEvent(sent.body.data.event_id as string);
      expect(event.data.conversation_id).toBe(friendConversationId(alice));
      expectRefusal(await refusal(url, { auth: {}, transports: ['polling'] }), 1101);
      expectRefusal(await refusal(url, { auth: { token: 'garbage' }, transports: ['polling'] }), 1102);
      b.close();
    });

    it('upgrades from polling to websocket (the client default)', async () => {
      const u = await issueUser(t);
      const c = await connect(url, { auth: { token: u.token }, transports: ['polling', 'websocket'] });
      await c.waitFor(() => c.socket.io.engine.transport.name === 'websocket', 5000, 'the websocket upgrade');
      c.close();
    });
  });
});
