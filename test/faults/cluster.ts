// Several instances of the built service on one private MariaDB database and one private Redis:
// the scale-out topology of docs/operations.md (two instances behind a load balancer) without the
// balancer, so that each test client chooses the instance it talks to, and an instance can be
// killed (kill -9) and restarted under the clients' feet.
import { FaultUser, ok, randomSuffix } from './client';
import { FaultLab } from './harness';
import { sleep } from './processes';
import { MariaDb, RedisServer } from './servers';
import { ServiceProcess } from './service-process';

/** Settings every instance of a cluster gets (on top of the fault tests' production defaults). */
const CLUSTER_ENV: Record<string, string> = {
  DB_QUERY_TIMEOUT_MS: '8000',
  SHUTDOWN_TIMEOUT_MS: '5000',
  // Rate limits live in Redis and are shared by the instances: far above what the tests send.
  RATE_LIMITS:
    'send=100000/1s,friend_request=100000/60s,report=100000/60s,client_error=100000/60s,media_upload=100000/60s',
  REALTIME_CONNECTS_PER_MINUTE: '100000',
  REALTIME_CLIENT_MESSAGES_PER_10S: '10000',
  // A crashed instance's connections expire after this (production: 45 s), so that the
  // presence test waits seconds, not a minute.
  REALTIME_PRESENCE_TTL_MS: '3000',
  LOG_LEVEL: 'warn',
};

export class Cluster {
  constructor(
    readonly db: MariaDb,
    readonly redis: RedisServer,
    /** The database's name on `db`. */
    readonly database: string,
    readonly instances: ServiceProcess[],
  ) {}

  get databaseUrl(): string {
    return this.db.url(this.database);
  }

  /** Base URL (HTTP and socket.io) of instance `i`. */
  url(i: number): string {
    return baseUrl(this.instances[i]);
  }

  /** Indexes of the instances whose process is running. */
  alive(): number[] {
    return this.instances.map((s, i) => (s.running ? i : -1)).filter((i) => i >= 0);
  }

  /** kill -9 of instance `i`, waiting until the process is gone. */
  kill(i: number): Promise<void> {
    return this.instances[i].kill();
  }

  /** Starts instance `i` again (same port) and waits until it is ready. */
  restart(i: number): Promise<void> {
    return this.instances[i].startReady();
  }

  /** The last lines of every instance's log, for a failure message. */
  logs(chars = 1500): string {
    return this.instances
      .map(
        (s, i) =>
          `--- instance ${i} (port ${s.port}, ${s.running ? 'running' : `exited ${s.exitCode ?? s.exitSignal}`}) ---\n${s.tail(chars)}`,
      )
      .join('\n');
  }
}

export const baseUrl = (service: ServiceProcess): string => `http://127.0.0.1:${service.port}`;

/**
 * `n` instances of dist/main.js with one DATABASE_URL and one REDIS_URL. The first starts
 * alone and runs the migrations; the others then start together on the migrated schema.
 */
export async function startCluster(lab: FaultLab, n: number, env: Record<string, string> = {}): Promise<Cluster> {
  const db = await lab.mariaDb();
  const redis = await lab.redis();
  const database = `im_cluster_${randomSuffix()}`;
  const databaseUrl = await db.createDatabase(database);
  const instances: ServiceProcess[] = [];
  for (let i = 0; i < n; i += 1)
    instances.push(await lab.service({ DATABASE_URL: databaseUrl, REDIS_URL: redis.url, ...CLUSTER_ENV, ...env }));
  await instances[0].startReady();
  await Promise.all(instances.slice(1).map((s) => s.startReady()));
  return new Cluster(db, redis, database, instances);
}

/** What an acknowledged send answered: the event every recipient must receive. */
export interface SentMessage {
  sender: FaultUser;
  /** The conversation as the sender names it. */
  conversationId: string;
  clientMessageId: string;
  eventId: string;
  mid: string;
  seq: number;
  /** Which instance answered. */
  via: number;
  /** When the reply arrived (Date.now()). */
  ackedAt: number;
}

/**
 * One send through instance `via`, no retry: a network error or any reply but code 0 rejects
 * (a killed instance's requests in flight end that way, and count as not acknowledged).
 */
export async function sendMessage(
  cluster: Cluster,
  via: number,
  sender: FaultUser,
  conversationId: string,
  text: string,
  timeoutMs = 10_000,
): Promise<SentMessage> {
  const clientMessageId = `c-${randomSuffix()}`;
  const reply = await cluster.instances[via].request('POST', '/app/sdk/messages/send', {
    token: sender.token,
    body: { conversation_id: conversationId, client_message_id: clientMessageId, type: 'text', content: { text } },
    timeoutMs,
  });
  const data = ok<{ message: { mid: string; conversation_seq: string }; event_id: string }>(
    reply,
    `send ${clientMessageId} via instance ${via}`,
  );
  return {
    sender,
    conversationId,
    clientMessageId,
    eventId: data.event_id,
    mid: data.message.mid,
    seq: Number(data.message.conversation_seq),
    via,
    ackedAt: Date.now(),
  };
}

/** Waits until `check` holds, polling every 50 ms; answers whether it did within `timeoutMs`. */
export async function eventually(timeoutMs: number, check: () => boolean): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
}

/** Delivery positions of these events as the database holds them (null: not sequenced), for failure reports. */
export async function storedPositions(cluster: Cluster, eventIds: string[]): Promise<Map<string, number | null>> {
  const positions = new Map<string, number | null>();
  for (let i = 0; i < eventIds.length; i += 500) {
    const chunk = eventIds.slice(i, i + 500);
    const rows = await cluster.db.query<{ event_id: string; position: string | number | null }>(
      `SELECT event_id, position FROM outbox_events WHERE event_id IN (${chunk.map(() => '?').join(', ')})`,
      chunk,
      cluster.database,
    );
    for (const row of rows) positions.set(row.event_id, row.position === null ? null : Number(row.position));
  }
  return positions;
}

/** A figure the run measured, printed beside jest's output (the report quotes them). */
export function report(spec: string, line: string): void {
  process.stdout.write(`[${spec}] ${line}\n`);
}
