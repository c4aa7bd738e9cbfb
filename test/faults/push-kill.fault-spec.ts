// Offline push across two instances of the built service on one MariaDB and one Redis, against
// a fake FCM: a user connected to the other instance gets no notification; and kill -9 of the
// instance whose request the provider accepted but had not answered: the notification's claim
// runs out, the other instance sends it again with the same collapse key, and the device shows
// it once.
import { io, Socket } from 'socket.io-client';
import { FakeFcm } from '../push/fakes/fake-fcm';
import { PushFiles, androidDevice, fcmEnv } from '../push/push-kit';
import { Cluster, SentMessage, eventually, report, sendMessage, startCluster } from './cluster';
import { FaultLab, FaultUser, friendConversationId, issueUser, makeFriends, ok, sleep } from './harness';

const inFlight = (metrics: string): number =>
  Number(/^im_push_in_flight\{provider="fcm"\} (\d+)/m.exec(metrics)?.[1] ?? 0);

describe('push: presence across instances and kill -9 mid-send', () => {
  const lab = new FaultLab();
  const files = new PushFiles();
  let fcm: FakeFcm;
  let cluster: Cluster;
  let alice: FaultUser;
  let bob: FaultUser;
  const bobToken = FakeFcm.deviceToken();

  beforeAll(async () => {
    fcm = await FakeFcm.start();
    cluster = await startCluster(lab, 2, {
      ...(await fcmEnv(fcm, files)),
      PUSH_TIMEOUT_MS: '2000',
      PUSH_LEASE_MS: '6000',
      PUSH_POLL_MS: '100',
      PUSH_BACKOFF_BASE_MS: '100',
      PUSH_BACKOFF_MAX_MS: '500',
    });
    alice = await issueUser(cluster.instances[0], 'alice');
    bob = await issueUser(cluster.instances[1], 'bob');
    await makeFriends(cluster.instances[0], alice, bob);
    ok(
      await cluster.instances[1].request('POST', '/app/sdk/push/register', {
        token: bob.token,
        body: androidDevice(bobToken),
      }),
      'register bob',
    );
  });

  afterAll(async () => {
    await lab.close();
    await fcm.close();
    files.cleanup();
  });

  /** Waits until the dispatcher's cursor has passed the event (read from the database); false after 30 s. */
  async function dispatchedPast(eventId: string): Promise<boolean> {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const [row] = await cluster.db.query<{ n: number | string }>(
        'SELECT COUNT(*) AS n FROM outbox_events e JOIN push_dispatch d ON d.id = 1 WHERE e.event_id = ? AND e.position <= d.cursor_position',
        [eventId],
        cluster.database,
      );
      if (Number(row?.n) > 0) return true;
      await sleep(50);
    }
    return false;
  }

  /** Waits until the shared presence registry has bob offline, as alice (his friend) asks it; false after 30 s. */
  async function bobOffline(): Promise<boolean> {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const reply = await cluster.instances[0].request('POST', '/app/sdk/presence/query', {
        token: alice.token,
        body: { user_ids: [bob.userId] },
      });
      const { items } = ok<{ items: Array<{ user_id: string; online: boolean }> }>(reply, 'presence query');
      if (items.some((item) => item.user_id === bob.userId && !item.online)) return true;
      await sleep(50);
    }
    return false;
  }

  const notified = (eventId: string) => fcm.received.filter((r) => r.token === bobToken && r.collapseKey === eventId);

  it('sends nothing to a user connected to the other instance', async () => {
    const socket: Socket = io(cluster.url(1), {
      auth: { token: bob.token },
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('connection.ready', () => resolve());
      socket.once('connect_error', reject);
    });
    const heard = new Promise<void>((resolve) => {
      socket.once('message.new', () => resolve());
    });
    const online = await sendMessage(cluster, 0, alice, friendConversationId(bob), 'you are online');
    await heard;
    // Presence is asked when the dispatcher reads the event (it lets a burst gather first): the
    // socket stays until it has.
    const dispatched = await dispatchedPast(online.eventId);
    expect({ dispatched, logs: dispatched ? '' : cluster.logs() }).toEqual({ dispatched: true, logs: '' });
    socket.close();
    // The disconnect reaches the presence registry (Redis) a moment later, longer on a loaded machine.
    const offlineSeen = await bobOffline();
    expect({ offlineSeen, logs: offlineSeen ? '' : cluster.logs() }).toEqual({ offlineSeen: true, logs: '' });
    // The dispatcher reads in order: once this one is notified, it has decided on the first one too.
    const offline = await sendMessage(cluster, 0, alice, friendConversationId(bob), 'you are offline');
    const arrived = await eventually(30_000, () => notified(offline.eventId).length > 0);
    expect({ arrived, logs: arrived ? '' : cluster.logs() }).toEqual({ arrived: true, logs: '' });
    expect(notified(online.eventId)).toEqual([]);
  });

  it('sends a notification again from the other instance after kill -9, and the device shows it once', async () => {
    fcm.setDelay({ send: 60_000 });
    const held = await sendMessage(cluster, 0, alice, friendConversationId(bob), 'held by the provider');
    expect(await eventually(30_000, () => notified(held.eventId).length === 1)).toBe(true);
    // The instance whose request is open: its in-flight gauge says so.
    const gauges = await Promise.all(
      cluster.instances.map(async (s) => inFlight((await s.request('GET', '/metrics')).text)),
    );
    const sender = gauges.findIndex((n) => n > 0);
    expect({ gauges, sender: sender >= 0 }).toEqual({ gauges, sender: true });
    fcm.setDelay({ send: 0 });
    const killedAt = Date.now();
    await cluster.kill(sender);
    const after: SentMessage[] = [];
    const survivor = 1 - sender;
    for (let i = 0; i < 3; i++)
      after.push(await sendMessage(cluster, survivor, alice, friendConversationId(bob), `after the kill ${i}`));
    const complete = await eventually(
      60_000,
      () =>
        [held, ...after].every((m) => fcm.shown(bobToken).some((s) => s.tag === m.eventId)) &&
        notified(held.eventId).length >= 2,
    );
    expect({ complete, logs: complete ? '' : cluster.logs() }).toEqual({ complete: true, logs: '' });
    // Sent twice (the crash came after the provider accepted it), shown once: the event ID is the collapse key.
    expect(fcm.shown(bobToken).filter((s) => s.tag === held.eventId)).toHaveLength(1);
    for (const m of after) expect(notified(m.eventId)).toHaveLength(1);
    report('push-kill', `sent again by the survivor ${Date.now() - killedAt} ms after the kill (claim lease 6 s)`);
    await cluster.restart(sender);
  });
});
