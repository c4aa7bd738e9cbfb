// kill -9 of the service while 8 clients send concurrently into one group and four one-to-one
// conversations, each client retrying with the same client_message_id until acknowledged (what
// the SDKs do). Afterwards every acknowledged message is stored exactly once with its content,
// and each conversation's sequences run 1..N without a gap or a duplicate. Then SIGTERM during
// sends: the requests in flight are answered and the process exits 0.
import {
  Ack,
  FaultLab,
  FaultUser,
  MariaDb,
  ServiceProcess,
  createGroup,
  expectExactlyOnce,
  friendConversationId,
  issueUser,
  makeFriends,
  ok,
  randomSuffix,
  sendUntilAcked,
  sleep,
  waitFor,
} from './harness';

const SENDERS = 8;
const MESSAGES_PER_CONVERSATION = 16;
const KILLS = 2;

describe('kill -9 of the service during concurrent sends', () => {
  const lab = new FaultLab();
  let db: MariaDb;
  let service: ServiceProcess;
  let users: FaultUser[];
  let groupCid: string;

  beforeAll(async () => {
    db = await lab.mariaDb();
    const url = await db.createDatabase(`im_faults_${randomSuffix()}`);
    service = await lab.service({ DATABASE_URL: url, DB_QUERY_TIMEOUT_MS: '8000', SHUTDOWN_TIMEOUT_MS: '8000' });
    await service.startReady();
    users = [];
    for (let i = 0; i < SENDERS; i += 1) users.push(await issueUser(service, `k${i}`));
    groupCid = await createGroup(service, users[0], users.slice(1));
    for (let i = 0; i < SENDERS; i += 2) await makeFriends(service, users[i], users[i + 1]);
  });

  afterAll(() => lab.close());

  /** The conversation each sender writes to besides the group: its pair's one-to-one. */
  const peerOf = (i: number): FaultUser => users[i % 2 === 0 ? i + 1 : i - 1];

  it('keeps every acknowledged message exactly once, with continuous sequences', async () => {
    const total = SENDERS * MESSAGES_PER_CONVERSATION * 2;
    const acks: Ack[] = [];
    const stats = { retries: 0, networkErrors: 0, unavailable: 0 };
    let failure: Error | null = null;

    const sender = async (i: number): Promise<void> => {
      const me = users[i];
      const direct = friendConversationId(peerOf(i));
      for (let n = 1; n <= MESSAGES_PER_CONVERSATION; n += 1) {
        for (const conversationId of [groupCid, direct]) {
          if (failure) return;
          const clientMessageId = `k-${i}-${n}-${conversationId === groupCid ? 'g' : 'd'}-${randomSuffix()}`;
          acks.push(
            await sendUntilAcked(
              service,
              me,
              conversationId,
              clientMessageId,
              `sender ${i} message ${n} to ${conversationId}`,
              stats,
            ),
          );
        }
      }
    };
    const senders = Array.from({ length: SENDERS }, (_, i) =>
      sender(i).catch((error: Error) => {
        failure = error;
      }),
    );

    const kills: { ackedBefore: number; pid: number | null }[] = [];
    for (let k = 1; k <= KILLS; k += 1) {
      await waitFor(
        `${Math.round((k * total) / (KILLS + 1))} acknowledgements`,
        60_000,
        async () => (failure || acks.length >= (k * total) / (KILLS + 1) ? true : undefined),
        20,
      );
      if (failure) break;
      kills.push({ ackedBefore: acks.length, pid: service.pid });
      await service.kill();
      await sleep(300);
      await service.start();
    }
    await Promise.all(senders);
    if (failure) throw new Error(`${String(failure)}\n--- service log ---\n${service.tail()}`);

    expect(acks).toHaveLength(total);
    expect(kills).toHaveLength(KILLS);
    // The kills really interrupted sends: some clients saw a dropped connection or a refusal.
    expect(stats.networkErrors + stats.unavailable).toBeGreaterThan(0);

    await service.waitReady();
    await expectExactlyOnce(
      service,
      users[0],
      groupCid,
      acks.filter((a) => a.conversationId === groupCid),
    );
    for (let i = 0; i < SENDERS; i += 2) {
      const pairAcks = acks.filter(
        (a) => a.conversationId !== groupCid && (a.sender === users[i] || a.sender === users[i + 1]),
      );
      expect(pairAcks).toHaveLength(2 * MESSAGES_PER_CONVERSATION);
      await expectExactlyOnce(service, users[i], friendConversationId(users[i + 1]), pairAcks);
    }

    // A retry after the acknowledgement answers the stored message, never a second one.
    for (const ack of acks.filter((_, index) => index % 8 === 0)) {
      const again = await sendUntilAcked(service, ack.sender, ack.conversationId, ack.clientMessageId, ack.text);
      expect({ cmid: ack.clientMessageId, mid: again.mid, seq: again.seq }).toEqual({
        cmid: ack.clientMessageId,
        mid: ack.mid,
        seq: ack.seq,
      });
    }
    await expectExactlyOnce(
      service,
      users[0],
      groupCid,
      acks.filter((a) => a.conversationId === groupCid),
    );
  });

  it('on SIGTERM answers the requests in flight, refuses readiness and exits 0', async () => {
    await service.waitReady();
    const before = await sendUntilAcked(service, users[1], groupCid, `t-before-${randomSuffix()}`, 'before SIGTERM');
    // A frozen database holds the sends in flight while the signal arrives.
    db.freeze();
    let inFlight: Promise<{ status: number; code: unknown; ms: number; error?: string }>[] = [];
    try {
      inFlight = users.map((u, i) =>
        service
          .request('POST', '/app/sdk/messages/send', {
            token: u.token,
            body: {
              conversation_id: groupCid,
              client_message_id: `t-${i}-${randomSuffix()}`,
              type: 'text',
              content: { text: `in flight ${i}` },
            },
            timeoutMs: 20_000,
          })
          .then((r) => ({ status: r.status, code: r.body.code, ms: r.ms }))
          .catch((error: Error) => ({ status: 0, code: null, ms: 0, error: error.message })),
      );
      await sleep(500);
      service.signal('SIGTERM');
      await sleep(200);
      const ready = await service
        .request('GET', '/health/ready', { timeoutMs: 2000 })
        .then((r) => ({ status: r.status, code: r.body.code }))
        .catch((error: NodeJS.ErrnoException) => ({ status: 0, code: error.code ?? error.message }));
      // Shutting down: readiness fails at once (503), or the listener is already closed.
      expect([
        { status: 503, code: 1500 },
        { status: 0, code: 'ECONNREFUSED' },
      ]).toContainEqual(ready);
      expect(service.running).toBe(true);
    } finally {
      db.thaw();
    }
    const answers = await Promise.all(inFlight);
    expect(answers.map((a) => ({ status: a.status, code: a.code, error: a.error }))).toEqual(
      users.map(() => ({ status: 200, code: 0, error: undefined })),
    );
    // They were still in flight when the signal came (held by the frozen database).
    expect(Math.min(...answers.map((a) => a.ms))).toBeGreaterThanOrEqual(600);
    await service.exited(10_000);
    expect({ exitCode: service.exitCode, signal: service.exitSignal }).toEqual({ exitCode: 0, signal: null });

    await service.startReady();
    const group = await sendUntilAcked(service, users[0], groupCid, `t-after-${randomSuffix()}`, 'after restart');
    expect(group.seq).toBe(before.seq + users.length + 1);
    const window = ok<{ messages: { content: { text?: string } | null }[] }>(
      await service.request('GET', '/app/sdk/messages', {
        token: users[0].token,
        query: { conversation_id: groupCid, after_seq: String(before.seq) },
      }),
      'messages after SIGTERM',
    );
    expect(window.messages.map((m) => m.content?.text).sort()).toEqual(
      [...users.map((_, i) => `in flight ${i}`), 'after restart'].sort(),
    );
  });
});
