import { bearer, friendConversationId, issueUser, startTestApp, TestApp } from '../helpers/test-app';
import { Seed } from '../helpers/factories';
import { connect, listen, refusal } from '../helpers/realtime';

describe('realtime smoke', () => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await startTestApp();
    url = await listen(t);
  });
  afterAll(() => t.close());

  it('delivers a message live and on resume', async () => {
    const alice = await issueUser(t);
    const bob = await issueUser(t);
    await new Seed(t).friends(alice.id, bob.id);
    expect((await refusal(url, { auth: {} })).code).toBe(1101);
    const b = await connect(url, { auth: { token: bob.token } });
    const ready = await b.waitForReady();
    expect(ready.resumed).toBe(false);
    const sent = await t.http
      .post('/app/sdk/messages/send')
      .set(...bearer(alice.token))
      .send({
        conversation_id: friendConversationId(bob),
        client_message_id: 'x1',
        type: 'text',
        content: { text: 'hi' },
      });
    const live = await b.waitForEvent(sent.body.data.event_id as string);
    expect(live.data.conversation_id).toBe(friendConversationId(alice));
    b.close();
    const sent2 = await t.http
      .post('/app/sdk/messages/send')
      .set(...bearer(alice.token))
      .send({
        conversation_id: friendConversationId(bob),
        client_message_id: 'x2',
        type: 'text',
        content: { text: 'again' },
      });
    const b2 = await connect(url, { auth: { token: bob.token, position: live.position } });
    const r2 = await b2.waitForReady();
    expect(r2).toMatchObject({ resumed: true, replayed: 1 });
    expect(b2.of().map((e) => e.event_id)).toEqual([sent2.body.data.event_id]);
    b2.close();
  });

  it('SDK_ENABLED=false: IM tokens answer 1002 on HTTP and at the handshake; the host endpoints still work', async () => {
    const off = await startTestApp({ SDK_ENABLED: 'false' });
    try {
      const user = await issueUser(off);
      const unread = await off.http.get('/app/sdk/unread').set(...bearer(user.token));
      expect(unread.body).toMatchObject({ code: 1002, data: null });
      expect(unread.body.msg).toContain('SDK_ENABLED');
      expect(await refusal(await listen(off), { auth: { token: user.token } })).toMatchObject({ code: 1002 });
    } finally {
      await off.close();
    }
  });

  it('answers CORS on the socket.io endpoint for CORS_ORIGINS only', async () => {
    const cors = await startTestApp({ CORS_ORIGINS: 'https://app.example' });
    try {
      const allowed = await cors.http.get('/socket.io/?EIO=4&transport=polling').set('Origin', 'https://app.example');
      expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example');
      expect(allowed.headers['access-control-allow-credentials']).toBeUndefined();
      const other = await cors.http.get('/socket.io/?EIO=4&transport=polling').set('Origin', 'https://evil.example');
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await cors.close();
    }
  });

  it('limits handshakes per user per minute and open connections per user, answering 1005 in connect_error', async () => {
    const limited = await startTestApp({ REALTIME_CONNECTS_PER_MINUTE: '3', REALTIME_MAX_SOCKETS_PER_USER: '2' });
    try {
      const limitedUrl = await listen(limited);
      const [busy, eager] = [await issueUser(limited), await issueUser(limited)];
      const open = [
        await connect(limitedUrl, { auth: { token: busy.token } }),
        await connect(limitedUrl, { auth: { token: busy.token } }),
      ];
      expect(await refusal(limitedUrl, { auth: { token: busy.token } })).toMatchObject({
        code: 1005,
        msg: expect.stringContaining('at most 2 per user'),
      });
      for (const client of open) client.close();
      // The per-minute count is a fixed window: hold the clock inside one, so that the four
      // handshakes cannot straddle a minute's edge on a slow machine.
      limited.clock.set(Math.ceil(limited.clock.now() / 60_000) * 60_000 + 1000);
      for (let i = 0; i < 3; i++) (await connect(limitedUrl, { auth: { token: eager.token } })).close();
      expect(await refusal(limitedUrl, { auth: { token: eager.token } })).toMatchObject({
        code: 1005,
        msg: expect.stringContaining('per minute'),
      });
      limited.clock.advance(61_000);
      (await connect(limitedUrl, { auth: { token: eager.token } })).close();
    } finally {
      await limited.close();
    }
  });
});
