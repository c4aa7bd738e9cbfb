// Webhooks across two instances of the built service on one MariaDB: kill -9 of the instance
// that holds an endpoint's lease while the receiver keeps its request open. The other instance
// claims the endpoint once the lease expires and delivers the event again: nothing is lost, the
// order holds, and the two requests for the event are never open at the same time.
import { randomBytes } from 'node:crypto';
import { Cluster, SentMessage, eventually, report, sendMessage, startCluster } from './cluster';
import { FaultLab, FaultUser, friendConversationId, issueUser, makeFriends } from './harness';
import { Receiver } from '../webhooks/receiver';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;

describe('webhooks: kill -9 mid-delivery', () => {
  const lab = new FaultLab();
  const receiver = new Receiver([SECRET]);
  let cluster: Cluster;
  let alice: FaultUser;
  let bob: FaultUser;

  beforeAll(async () => {
    await receiver.start();
    cluster = await startCluster(lab, 2, {
      WEBHOOK_ENDPOINTS: JSON.stringify([{ url: receiver.url, secret: SECRET, event_types: ['message.new'] }]),
      WEBHOOK_TIMEOUT_MS: '5000',
      WEBHOOK_LEASE_MS: '12000',
      WEBHOOK_POLL_MS: '200',
      WEBHOOK_BACKOFF_BASE_MS: '100',
      WEBHOOK_BACKOFF_MAX_MS: '500',
      // The claim line says which instance delivers (info level).
      LOG_LEVEL: 'info',
    });
    alice = await issueUser(cluster.instances[0], 'alice');
    bob = await issueUser(cluster.instances[1], 'bob');
    await makeFriends(cluster.instances[0], alice, bob);
  });

  afterAll(async () => {
    await lab.close();
    await receiver.stop();
  });

  it('delivers the event again from the other instance, in order, nothing lost', async () => {
    let held = false;
    receiver.answer = () => {
      if (held) return 200;
      held = true;
      return 'hang';
    };
    const sent: SentMessage[] = [];
    for (let i = 0; i < 3; i++) sent.push(await sendMessage(cluster, 0, alice, friendConversationId(bob), `hook ${i}`));
    expect(await eventually(30_000, () => receiver.attempts.length >= 1)).toBe(true);
    const holder = cluster.instances.findIndex((s) => s.log.includes('delivering from this instance'));
    expect(holder).toBeGreaterThanOrEqual(0);
    const killedAt = Date.now();
    await cluster.kill(holder);
    const complete = await eventually(60_000, () => receiver.delivered().length >= 3);
    expect({ complete, logs: complete ? '' : cluster.logs() }).toEqual({ complete: true, logs: '' });
    expect(receiver.delivered().map((d) => d.id)).toEqual(sent.map((s) => s.eventId));
    // The held event was sent twice (the receiver dedups by webhook-id), never twice at once.
    expect(receiver.attempts.filter((id) => id === sent[0].eventId).length).toBeGreaterThanOrEqual(2);
    expect(receiver.concurrentDuplicates).toBe(0);
    expect(receiver.unverified).toBe(0);
    report('webhook-kill', `redelivered by the survivor ${Date.now() - killedAt} ms after the kill (lease 12 s)`);
    await cluster.restart(holder);
  });
});
