// Chaos on two instances (one MariaDB database, one Redis): 50 clients drop their connections at
// random (cleanly or by closing the transport under socket.io) and come back to a random instance
// with the position they last processed, while 5 senders send through both instances. At the
// end each client has processed exactly the messages it may see (the group's, and its own
// one-to-one conversations', computed from the HTTP replies), each once, in sequence order.
import { Cluster, SentMessage, report, sendMessage, startCluster, storedPositions } from './cluster';
import { FaultLab, FaultUser, createGroup, friendConversationId, issueUser, makeFriends, sleep } from './harness';
import { ResumingClient } from './resuming-client';

const CLIENTS = 50;
const GROUP_MEMBERS = 30;
const SENDERS = 5;
const FRIENDS_PER_SENDER = 4;
const CHAOS_MS = 20_000;
/** Bounded wait for the last deliveries once the chaos stopped (they normally take well under a second). */
const FINAL_WAIT_MS = 30_000;

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)];
const between = (low: number, high: number): number => low + Math.floor(Math.random() * (high - low));

/** Who may see a message: both sides of a one-to-one conversation, every member of the group. */
interface Conversation {
  key: string;
  members: Set<number>;
  /** The ID each sender uses for it. */
  idFor: (sender: number) => string;
}

/**
 * "<event_id> (...)" with the missing event's stored position and the client's processed events
 * just below and above it: on which connection each came, and whether live or replayed.
 */
function explainMissing(line: string, client: ResumingClient, positions: Map<string, number | null>): string {
  const eventId = line.split(' ')[0];
  const position = positions.get(eventId);
  if (position === null || position === undefined) return `${line}: not sequenced`;
  let below: { position: number; connection: number; live: boolean } | null = null;
  let above: { position: number; connection: number; live: boolean } | null = null;
  for (const p of client.processed) {
    const at = positions.get(p.eventId);
    if (at === null || at === undefined) continue;
    if (at < position && (!below || at > below.position))
      below = { position: at, connection: p.connection, live: p.live };
    if (at > position && (!above || at < above.position))
      above = { position: at, connection: p.connection, live: p.live };
  }
  const where = (n: typeof below): string =>
    n ? `${n.position} on connection ${n.connection} ${n.live ? 'live' : 'replayed'}` : 'none';
  return `${line}: position ${position}; processed just below ${where(below)}, just above ${where(above)}`;
}

describe('chaos: 50 clients dropping and resuming across two instances while 5 senders send', () => {
  const lab = new FaultLab();
  let cluster: Cluster;
  let users: FaultUser[];
  let group: Conversation;
  /** Per sender: the group and its one-to-one conversations. */
  const conversationsOf = new Map<number, Conversation[]>();

  beforeAll(async () => {
    cluster = await startCluster(lab, 2);
    users = [];
    for (let i = 0; i < CLIENTS; i += 1) users.push(await issueUser(cluster.instances[i % 2], `c${i}`));
    // Members 0..29 share the group; senders 0..4 are in it and each has 4 friends among 30..49.
    const groupCid = await createGroup(cluster.instances[0], users[0], users.slice(1, GROUP_MEMBERS));
    group = {
      key: 'group',
      members: new Set(Array.from({ length: GROUP_MEMBERS }, (_, i) => i)),
      idFor: () => groupCid,
    };
    for (let s = 0; s < SENDERS; s += 1) {
      const list = [group];
      for (let k = 0; k < FRIENDS_PER_SENDER; k += 1) {
        const friend = GROUP_MEMBERS + s * FRIENDS_PER_SENDER + k;
        await makeFriends(cluster.instances[k % 2], users[s], users[friend]);
        list.push({
          key: `pair ${s}-${friend}`,
          members: new Set([s, friend]),
          idFor: () => friendConversationId(users[friend]),
        });
      }
      conversationsOf.set(s, list);
    }
  });

  afterAll(() => lab.close());

  it('every client ends with exactly the messages it may see, each once, in order', async () => {
    const urls = [cluster.url(0), cluster.url(1)];
    // One in five starts on HTTP long-polling and upgrades, as browsers behind some proxies do.
    const clients = users.map(
      (u, i) =>
        new ResumingClient(`client ${i}`, u.token, {
          transports: i % 5 === 4 ? ['polling', 'websocket'] : ['websocket'],
        }),
    );
    await Promise.all(clients.map((c, i) => c.connect(urls[i % 2])));

    const sent: Array<SentMessage & { conversation: Conversation }> = [];
    const sendFailures: string[] = [];
    let running = true;
    const senders = Array.from({ length: SENDERS }, async (_, s) => {
      while (running) {
        const conversation = pick(conversationsOf.get(s)!);
        try {
          sent.push({
            ...(await sendMessage(
              cluster,
              between(0, 2),
              users[s],
              conversation.idFor(s),
              `from ${s} to ${conversation.key}`,
            )),
            conversation,
          });
        } catch (error) {
          sendFailures.push((error as Error).message.slice(0, 300));
        }
        await sleep(between(10, 60));
      }
    });
    const chaosErrors: string[] = [];
    const chaos = clients.map(async (client) => {
      while (running) {
        await sleep(between(300, 2500));
        if (!running) break;
        client.disconnect(Math.random() < 0.5 ? 'graceful' : 'abrupt');
        await sleep(between(0, 1000));
        await client.connectSomewhere(() => pick(urls)).catch((error: Error) => chaosErrors.push(error.message));
      }
    });
    await sleep(CHAOS_MS);
    running = false;
    await Promise.all([...senders, ...chaos]);
    const stoppedAt = Date.now();
    for (const client of clients) if (!client.connected) await client.connectSomewhere(() => pick(urls));

    const expected = clients.map((_, i) => sent.filter((m) => m.conversation.members.has(i)));
    const complete = (i: number): boolean => expected[i].every((m) => clients[i].has(m.eventId));
    const deadline = stoppedAt + FINAL_WAIT_MS;
    while (Date.now() < deadline && !clients.every((_, i) => complete(i))) await sleep(100);
    const settledMs = Date.now() - stoppedAt;

    const byEvent = new Map(sent.map((m) => [m.eventId, m]));
    const problems = clients
      .map((client, i) => {
        const wanted = new Set(expected[i].map((m) => m.eventId));
        const got = client.eventIds('message.new');
        // Per conversation, the sequences in processing order must only grow.
        const lastSeq = new Map<string, number>();
        const outOfOrder: string[] = [];
        for (const id of got) {
          const message = byEvent.get(id);
          if (!message) continue;
          const before = lastSeq.get(message.conversation.key) ?? 0;
          if (message.seq <= before) outOfOrder.push(`${message.conversation.key}: seq ${message.seq} after ${before}`);
          lastSeq.set(message.conversation.key, message.seq);
        }
        return {
          client: i,
          missing: expected[i]
            .filter((m) => !client.has(m.eventId))
            .map((m) => `${m.eventId} (${m.conversation.key} seq ${m.seq} via ${m.via})`),
          unexpected: got.filter((id) => !wanted.has(id)),
          socketDuplicates: client.socketDuplicates.map((d) => `${d.eventId} on connection ${d.connection}`),
          resumeDuplicates: client.resumeDuplicates.map(
            (d) => `${d.eventId} on connection ${d.connection} (first on ${d.first})`,
          ),
          outOfOrder,
          refusedResumes: client.readies
            .filter((r) => r.passedPosition && !r.resumed)
            .map((r) => `connection ${r.connection} to ${r.url}`),
          replayMiscounts: client.readies
            .filter((r) => r.resumed && r.replayed !== r.before)
            .map((r) => `connection ${r.connection}: replayed ${r.replayed}, received ${r.before} before ready`),
          drops: client.drops.map((d) => d.reason),
        };
      })
      .filter(
        (p) =>
          p.missing.length +
            p.unexpected.length +
            p.socketDuplicates.length +
            p.resumeDuplicates.length +
            p.outOfOrder.length +
            p.refusedResumes.length +
            p.replayMiscounts.length +
            p.drops.length >
          0,
      );

    const connections = clients.reduce((n, c) => n + c.connections, 0);
    const replayed = clients.reduce((n, c) => n + c.readies.reduce((m, r) => m + r.replayed, 0), 0);
    const deliveries = clients.reduce((n, c) => n + c.eventIds('message.new').length, 0);
    const socketDuplicates = clients.reduce((n, c) => n + c.socketDuplicates.length, 0);
    const resumeDuplicates = clients.reduce((n, c) => n + c.resumeDuplicates.length, 0);
    report(
      'chaos',
      `${sent.length} messages acknowledged (${sent.filter((m) => m.conversation === group).length} to the group, via instance 0/1: ` +
        `${sent.filter((m) => m.via === 0).length}/${sent.filter((m) => m.via === 1).length}); deliveries expected/processed ` +
        `${expected.reduce((n, e) => n + e.length, 0)}/${deliveries}; ${connections} connections, ${replayed} events replayed on resume; ` +
        `duplicates on one connection ${socketDuplicates}, across connections ${resumeDuplicates}; ` +
        `clients complete ${settledMs} ms after the chaos stopped; ${problems.length} clients with problems`,
    );
    for (const client of clients) client.close();
    if (problems.some((p) => p.missing.length > 0)) {
      // Where each missing event sits among what the client did process (delivery positions as stored).
      const positions = await storedPositions(
        cluster,
        sent.map((m) => m.eventId),
      );
      for (const problem of problems) {
        const shown = problem.missing
          .slice(0, 8)
          .map((line) => explainMissing(line, clients[problem.client], positions));
        problem.missing =
          problem.missing.length > shown.length
            ? [...shown, `... ${problem.missing.length - shown.length} more`]
            : shown;
      }
    }

    expect({ sendFailures, chaosErrors }).toEqual({ sendFailures: [], chaosErrors: [] });
    // Every client was really dropped and resumed several times while messages flowed.
    expect(clients.filter((c) => c.readies.filter((r) => r.resumed).length < 3).map((c) => c.name)).toEqual([]);
    expect(sent.length).toBeGreaterThan(200);
    expect(problems).toEqual([]);
  });
});
