// The reference Web SDK (sdk/web) against the real service, in Node with socket.io-client:
// login and the JWT guard (spec 5.2), single-flight renewal racing requests, identity change
// (5.5), logout during a request (4.7 rule 6), reconnect and resume with missed messages,
// events processed once (6), two tabs of one user, and the end of a disabled user's session.
import { randomUUID } from 'node:crypto';
import { ImClient, ImError } from '../../sdk/web/src/index';
import { RealtimeService } from '../../src/realtime/realtime.service';
import { TestApp, hostAuth, issueUser } from '../helpers/test-app';
import { ApiClient, friendCid } from '../helpers/api-client';
import { hostProvider, sdkClient, until, useSdkApp } from './sdk-harness';

describe('Web SDK: session, renewal and real-time (sdk/web)', () => {
  const app = useSdkApp();
  let t: TestApp;
  let base: string;
  let api: ApiClient;
  let clients: ImClient[];
  beforeAll(() => ({ t, base, api, clients } = app));

  const provider = (userId: () => string) => hostProvider(t, userId);
  const client = (authProvider: () => Promise<unknown>) => sdkClient(base, authProvider, clients);

  it('logs in, checks the JWT against the returned user, connects and asks for recovery', async () => {
    const user = await issueUser(t);
    const { c, readies, recoveries } = client(provider(() => user.userId).fn);
    expect((await c.login()).user_id).toBe(user.userId);
    expect(c.currentUser?.user_id).toBe(user.userId);
    await until(() => readies.length === 1, 'connection.ready');
    await until(() => recoveries.flat().includes('connection.ready'), 'recovery after ready');
    expect(recoveries.flat()).toContain('login');
    const sync = await c.post<{ capabilities: Record<string, boolean> }>('/app/sdk/sync', {});
    expect(sync.capabilities.friends).toBe(true);
  });

  it('refuses a provider result whose token belongs to another user than the one returned (5.2)', async () => {
    const [a, b] = [await issueUser(t), await issueUser(t)];
    const mixed = async () => {
      const reply = (await provider(() => a.userId).fn()) as { user: Record<string, unknown> };
      return { ...reply, user: { ...reply.user, user_id: b.userId } };
    };
    const { c } = client(mixed);
    await expect(c.login()).rejects.toMatchObject({ kind: 'auth' });
    expect(c.currentUser).toBeNull();
  });

  it('renews once for many requests refused at once (1103), and every request then succeeds', async () => {
    const user = await issueUser(t);
    const p = provider(() => user.userId);
    const { c } = client(p.fn);
    await c.login();
    expect(p.calls.count).toBe(1);
    // The service's clock passes the token's expiry (the SDK's own clock does not know).
    t.clock.advance(t.config.tokenTtlSeconds * 1000 + 1000);
    const replies = await Promise.all(Array.from({ length: 6 }, () => c.get('/app/sdk/unread')));
    expect(replies).toHaveLength(6);
    expect(p.calls.count).toBe(2);
  });

  it('stops the session and reports an identity change when renewal answers another user (5.5)', async () => {
    const [a, b] = [await issueUser(t), await issueUser(t)];
    let who = a.userId;
    const { c } = client(provider(() => who).fn);
    const changes: unknown[] = [];
    c.on('identity.changed', (e) => changes.push(e));
    await c.login();
    who = b.userId;
    t.clock.advance(t.config.tokenTtlSeconds * 1000 + 1000);
    await expect(c.get('/app/sdk/unread')).rejects.toMatchObject({ kind: 'identity_changed' });
    expect(changes).toEqual([{ previous_user_id: a.userId, next_user_id: b.userId }]);
    expect(c.currentUser).toBeNull();
    await expect(c.get('/app/sdk/unread')).rejects.toMatchObject({ kind: 'stale' });
    // An explicit login may switch identity.
    expect((await c.login()).user_id).toBe(b.userId);
  });

  it('drops the reply of a request that was in flight at logout (4.7 rule 6)', async () => {
    const user = await issueUser(t);
    const { c } = client(provider(() => user.userId).fn);
    await c.login();
    const pending = c.post('/app/sdk/sync', {});
    c.logout();
    const error = (await pending.catch((e: unknown) => e)) as ImError;
    expect(error).toBeInstanceOf(ImError);
    expect(error.kind).toBe('stale');
  });

  it('reconnects after a drop and resumes: every message sent meanwhile arrives once, in order', async () => {
    const [me, peer] = [await issueUser(t), await issueUser(t)];
    await api.befriend(me, peer);
    const { c, events, readies, environment } = client(provider(() => me.userId).fn);
    await c.login();
    await until(() => readies.length === 1, 'first ready');
    // The instance drops every connection (as at a restart); the client comes back by itself.
    t.app.get(RealtimeService).disconnectAll();
    const sent: string[] = [];
    for (let i = 0; i < 3; i++) sent.push((await api.send(peer, friendCid(me), `while away ${i}`)).event_id);
    environment.online();
    await until(() => readies.length >= 2, 'ready after the drop');
    await until(() => sent.every((id) => events.some((e) => e.event_id === id)), 'the missed messages');
    const received = events.filter((e) => sent.includes(e.event_id)).map((e) => e.event_id);
    expect(received).toEqual(sent);
    // The client resumed from its last position instead of starting over.
    expect(readies[1]).toMatchObject({ resumed: true });
  });

  it('processes an event once when its HTTP reply and its real-time echo both arrive (6.2)', async () => {
    const [me, peer] = [await issueUser(t), await issueUser(t)];
    await api.befriend(me, peer);
    const { c, events, readies } = client(provider(() => me.userId).fn);
    await c.login();
    await until(() => readies.length === 1, 'ready');
    const reply = await c.post<{ event_id: string }>('/app/sdk/messages/send', {
      conversation_id: friendCid(peer),
      client_message_id: randomUUID(),
      type: 'text',
      content: { text: 'once' },
    });
    const firstFromReply = c.markProcessed(reply.event_id);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const fromSocket = events.filter((e) => e.event_id === reply.event_id).length;
    expect(fromSocket + (firstFromReply ? 1 : 0)).toBe(1);
  });

  it('uploads media and downloads its bytes with the IM token', async () => {
    const user = await issueUser(t);
    const { c } = client(provider(() => user.userId).fn);
    await c.login();
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
      'base64',
    );
    const { media } = await c.media.upload(new Blob([png], { type: 'image/png' }), { kind: 'image', name: 'dot.png' });
    expect(media).toMatchObject({ mime_type: 'image/png', size: png.length });
    const blob = await c.media.download(media.media_id);
    expect(Buffer.from(await blob.arrayBuffer()).equals(png)).toBe(true);
    await expect(c.media.download('999999999')).rejects.toBeInstanceOf(ImError);
  });

  it('delivers to two tabs of one user, each once', async () => {
    const [me, peer] = [await issueUser(t), await issueUser(t)];
    await api.befriend(me, peer);
    const tabs = [client(provider(() => me.userId).fn), client(provider(() => me.userId).fn)];
    for (const tab of tabs) await tab.c.login();
    await until(() => tabs.every((tab) => tab.readies.length === 1), 'both tabs ready');
    const { event_id } = await api.send(peer, friendCid(me), 'to both tabs');
    for (const tab of tabs) await until(() => tab.events.some((e) => e.event_id === event_id), 'the message');
    for (const tab of tabs) expect(tab.events.filter((e) => e.event_id === event_id)).toHaveLength(1);
  });

  it('ends the session when the user is disabled (1003), with the code, and does not reconnect', async () => {
    const user = await issueUser(t);
    const { c, ended, readies } = client(provider(() => user.userId).fn);
    await c.login();
    await until(() => readies.length === 1, 'ready');
    await t.http
      .post('/app/sdk/users/status')
      .set(...hostAuth())
      .send({ user_id: user.userId, disabled: true });
    await until(() => ended.length === 1, 'the end of the session');
    expect(ended[0]).toMatchObject({ code: 1003, kind: 'disabled' });
    expect(c.currentUser).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(readies).toHaveLength(1);
  });
});
