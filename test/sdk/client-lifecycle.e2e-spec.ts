// The client's lifecycle against the service: login() resolves once the connection is ready, so
// a listener added right after it hears every event that follows; an unreachable service makes
// login() reject (kind network) and leaves nothing started; connection.lost comes once per
// outage; once() listeners come off with off(); a destroyed client cannot log in again.
import { ImError, createClient } from '../../sdk/web/src/index';
import { RealtimeService } from '../../src/realtime/realtime.service';
import { issueUser } from '../helpers/test-app';
import { friendCid } from '../helpers/api-client';
import { hostProvider, sdkClient, testEnvironment, until, useSdkApp } from './sdk-harness';

describe('Web SDK: the client lifecycle (sdk/web/src/client.ts)', () => {
  const app = useSdkApp();

  it('resolves login() once connected: an event right after it reaches a listener added after it', async () => {
    const [me, peer] = [await issueUser(app.t), await issueUser(app.t)];
    await app.api.befriend(me, peer);
    const { c } = sdkClient(app.base, hostProvider(app.t, () => me.userId).fn, app.clients);
    await c.login();
    expect(c.connected).toBe(true);
    const heard: string[] = [];
    c.on('message.new', (e) => heard.push(String(e.data.message.content?.text)));
    await app.api.send(peer, friendCid(me), 'right after login');
    await until(() => heard.length === 1, 'the message sent right after login');
    expect(heard).toEqual(['right after login']);
  });

  it('rejects login() with kind network when the service cannot be reached, and starts nothing', async () => {
    const me = await issueUser(app.t);
    const c = createClient({
      // The token comes from the real host endpoint; the socket and HTTP go nowhere.
      baseUrl: 'http://127.0.0.1:9',
      authProvider: hostProvider(app.t, () => me.userId).fn,
      environment: testEnvironment(),
      connectTimeoutMs: 1500,
    });
    app.clients.push(c);
    const lost: string[] = [];
    c.on('connection.lost', ({ reason }) => lost.push(reason));
    const error = await c.login().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImError);
    expect(error).toMatchObject({ kind: 'network', code: 0 });
    expect(c.currentUser).toBeNull();
    expect(c.connected).toBe(false);
    // Never connected: no connection was lost either.
    expect(lost).toEqual([]);
  });

  it('emits connection.lost once per outage, and connection.ready when it ends', async () => {
    const me = await issueUser(app.t);
    const sut = sdkClient(app.base, hostProvider(app.t, () => me.userId).fn, app.clients);
    const lost: string[] = [];
    sut.c.on('connection.lost', ({ reason }) => lost.push(reason));
    await sut.c.login();
    for (let outage = 1; outage <= 2; outage++) {
      app.t.app.get(RealtimeService).disconnectAll();
      await until(() => lost.length === outage, `connection.lost of outage ${outage}`);
      sut.environment.online();
      await until(() => sut.readies.length === outage + 1 && sut.c.connected, `ready after outage ${outage}`);
    }
    expect(lost).toHaveLength(2);
  });

  it('removes a once() listener with off(), and refuses login() after destroy() (kind invalid)', async () => {
    const [me, peer] = [await issueUser(app.t), await issueUser(app.t)];
    await app.api.befriend(me, peer);
    const { c } = sdkClient(app.base, hostProvider(app.t, () => me.userId).fn, app.clients);
    await c.login();
    let onceCalls = 0;
    const listener = () => (onceCalls += 1);
    c.once('message.new', listener);
    c.off('message.new', listener);
    const all: string[] = [];
    c.on('message.new', (e) => all.push(e.event_id));
    await app.api.send(peer, friendCid(me), 'one');
    await until(() => all.length === 1, 'the message');
    expect(onceCalls).toBe(0);

    c.destroy();
    await expect(c.login()).rejects.toMatchObject({ kind: 'invalid' });
    expect(c.connected).toBe(false);
  });

  it('answers a call before any login with kind invalid', async () => {
    const c = createClient({ baseUrl: app.base, authProvider: async () => null, environment: testEnvironment() });
    app.clients.push(c);
    await expect(c.conversations.unread()).rejects.toMatchObject({ kind: 'invalid', code: 0 });
  });
});
