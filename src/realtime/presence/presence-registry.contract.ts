// The behaviour every PresenceRegistry must show, run by the memory and the Redis specs alike.
import type { PresenceRegistry, PresenceTransition } from './presence-registry';

export interface PresenceCluster {
  /** A new instance (registry object) sharing this cluster's state with the others it made. */
  instance(): Promise<PresenceRegistry>;
}

const TTL = 60_000;
const T0 = 1_700_000_000_000;

const online = (userId: string): PresenceTransition => ({ userId, online: true, lastSeenAt: null });
const offline = (userId: string, lastSeenAt: number): PresenceTransition => ({ userId, online: false, lastSeenAt });
const present = <T>(items: Array<T | null>): T[] => items.filter((item): item is T => item !== null);

/** Deterministic shuffle, so a failing interleaving can be replayed. */
function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Each test gets a fresh cluster with the TTL of 60 s; the factory owns the cleanup of its state. */
export function presenceRegistryContract(makeCluster: (ttlMs: number) => Promise<PresenceCluster>): void {
  let cluster: PresenceCluster;
  const made: PresenceRegistry[] = [];
  const instance = async (): Promise<PresenceRegistry> => {
    const registry = await cluster.instance();
    made.push(registry);
    return registry;
  };

  beforeEach(async () => {
    cluster = await makeCluster(TTL);
  });
  afterEach(async () => {
    await Promise.all(made.splice(0).map((registry) => registry.close()));
  });

  it('reports one device coming online and going offline at the disconnect time', async () => {
    const a = await instance();
    expect(await a.connected('1', 'c1', T0)).toEqual(online('1'));
    expect(await a.stateOf(['1'], T0 + 5)).toEqual(new Map([['1', { online: true, lastSeenAt: null }]]));
    expect(await a.disconnected('1', 'c1', T0 + 1000)).toEqual(offline('1', T0 + 1000));
    expect(await a.stateOf(['1'], T0 + 86_400_000)).toEqual(new Map([['1', { online: false, lastSeenAt: T0 + 1000 }]]));
  });

  it('counts devices: online with the first connection, offline only with the last', async () => {
    const a = await instance();
    expect(await a.connected('1', 'phone', T0)).toEqual(online('1'));
    expect(await a.connected('1', 'laptop', T0 + 1)).toBeNull();
    expect(await a.disconnected('1', 'phone', T0 + 2)).toBeNull();
    expect((await a.stateOf(['1'], T0 + 3)).get('1')).toEqual({ online: true, lastSeenAt: null });
    expect(await a.disconnected('1', 'laptop', T0 + 4)).toEqual(offline('1', T0 + 4));
  });

  it('counts across instances: the last connection of the last instance makes the user offline', async () => {
    const [a, b] = [await instance(), await instance()];
    expect(await a.connected('1', 'a1', T0)).toEqual(online('1'));
    expect(await b.connected('1', 'b1', T0 + 1)).toBeNull();
    expect(await a.disconnected('1', 'a1', T0 + 2)).toBeNull();
    expect((await a.stateOf(['1'], T0 + 3)).get('1')).toEqual({ online: true, lastSeenAt: null });
    expect(await b.disconnected('1', 'b1', T0 + 4)).toEqual(offline('1', T0 + 4));
    expect((await a.stateOf(['1'], T0 + 5)).get('1')).toEqual({ online: false, lastSeenAt: T0 + 4 });
  });

  it('makes exactly one online transition for many concurrent connects, and one offline for their disconnects', async () => {
    const [a, b] = [await instance(), await instance()];
    const ids = Array.from({ length: 40 }, (_, i) => `c${i}`);
    const on = await Promise.all(ids.map((id, i) => (i % 2 ? a : b).connected('7', id, T0 + i)));
    expect(present(on)).toEqual([online('7')]);
    const off = await Promise.all(
      shuffled(ids, 3).map((id) => (Number(id.slice(1)) % 2 ? a : b).disconnected('7', id, T0 + 100)),
    );
    expect(present(off)).toEqual([offline('7', T0 + 100)]);
  });

  it('reports nothing when a connect on one instance races a disconnect on another', async () => {
    const [a, b] = [await instance(), await instance()];
    await a.connected('1', 'a0', T0);
    await b.connected('1', 'b0', T0);
    // Each instance opens its next connection before closing its previous one (a device hand-over).
    for (let round = 0; round < 20; round++) {
      const now = T0 + 1 + round;
      const results = await Promise.all([
        a.connected('1', `a${round + 1}`, now),
        b.disconnected('1', `b${round}`, now),
        b.connected('1', `b${round + 1}`, now),
        a.disconnected('1', `a${round}`, now),
      ]);
      expect(present(results)).toEqual([]);
    }
    expect((await a.stateOf(['1'], T0 + 100)).get('1')).toEqual({ online: true, lastSeenAt: null });
  });

  it('keeps transitions exact for many users churning concurrently on two instances', async () => {
    const [a, b] = [await instance(), await instance()];
    const users = Array.from({ length: 20 }, (_, i) => String(100 + i));
    const pick = (user: string, device: number): PresenceRegistry => ((Number(user) + device) % 2 ? a : b);
    const opened = shuffled(
      users.flatMap((user) =>
        [0, 1, 2].map((device) => () => pick(user, device).connected(user, `${user}-${device}`, T0)),
      ),
      7,
    );
    const first = present(await Promise.all(opened.map((open) => open())));
    expect(first.sort((x, y) => x.userId.localeCompare(y.userId))).toEqual(users.map(online));

    // Even users close every device; odd users close two and open a new one.
    const churn = shuffled(
      users.flatMap((user) =>
        Number(user) % 2 === 0
          ? [0, 1, 2].map((device) => () => pick(user, device).disconnected(user, `${user}-${device}`, T0 + 10))
          : [
              () => pick(user, 0).disconnected(user, `${user}-0`, T0 + 10),
              () => pick(user, 1).disconnected(user, `${user}-1`, T0 + 10),
              () => pick(user, 3).connected(user, `${user}-3`, T0 + 10),
            ],
      ),
      11,
    );
    const second = present(await Promise.all(churn.map((step) => step())));
    const even = users.filter((user) => Number(user) % 2 === 0);
    expect(second.sort((x, y) => x.userId.localeCompare(y.userId))).toEqual(even.map((user) => offline(user, T0 + 10)));
    const states = await b.stateOf(users, T0 + 20);
    for (const user of users) expect(states.get(user)?.online).toBe(Number(user) % 2 === 1);
  });

  it("expires a crashed instance's connections after the TTL; one sweep reports them at the last heartbeat", async () => {
    const [crashed, live] = [await instance(), await instance()];
    await crashed.connected('1', 'x', T0);
    await crashed.refresh([{ userId: '1', connectionId: 'x' }], T0 + 20_000);
    await live.connected('2', 'y', T0);
    for (const at of [20_000, 40_000, 60_000, 80_000])
      await live.refresh([{ userId: '2', connectionId: 'y' }], T0 + at);

    const expiry = T0 + 20_000 + TTL;
    expect(await live.sweep(expiry - 1)).toEqual([]);
    expect((await live.stateOf(['1'], expiry - 1)).get('1')).toEqual({ online: true, lastSeenAt: null });
    expect(await live.sweep(expiry)).toEqual([offline('1', T0 + 20_000)]);
    expect(await live.sweep(expiry + 1)).toEqual([]);
    expect(await live.stateOf(['1', '2'], expiry + 1)).toEqual(
      new Map([
        ['1', { online: false, lastSeenAt: T0 + 20_000 }],
        ['2', { online: true, lastSeenAt: null }],
      ]),
    );
  });

  it('keeps a user online through a crash when a device on a live instance remains', async () => {
    const [crashed, live] = [await instance(), await instance()];
    await crashed.connected('1', 'x', T0);
    await live.connected('1', 'y', T0);
    await live.refresh([{ userId: '1', connectionId: 'y' }], T0 + 40_000);
    expect(await live.sweep(T0 + TTL + 1)).toEqual([]);
    expect((await live.stateOf(['1'], T0 + TTL + 1)).get('1')).toEqual({ online: true, lastSeenAt: null });
    expect(await live.disconnected('1', 'y', T0 + 70_000)).toEqual(offline('1', T0 + 70_000));
    expect(await live.sweep(T0 + 200_000)).toEqual([]);
  });

  it('takes lastSeenAt from a later disconnect on a live instance over a crashed heartbeat', async () => {
    const [crashed, live] = [await instance(), await instance()];
    await crashed.connected('1', 'x', T0);
    await live.connected('1', 'y', T0 + 1000);
    expect(await live.disconnected('1', 'y', T0 + 30_000)).toBeNull();
    expect(await live.sweep(T0 + TTL)).toEqual([offline('1', T0 + 30_000)]);
  });

  it('shows an expired but unswept user offline, and a new connection then reports online once', async () => {
    const [crashed, live] = [await instance(), await instance()];
    await crashed.connected('1', 'x', T0);
    expect((await live.stateOf(['1'], T0 + TTL)).get('1')).toEqual({ online: false, lastSeenAt: T0 });
    expect(await live.connected('1', 'y', T0 + TTL + 5)).toEqual(online('1'));
    expect(await live.sweep(T0 + TTL + 10)).toEqual([]);
    expect(await live.disconnected('1', 'y', T0 + TTL + 20)).toEqual(offline('1', T0 + TTL + 20));
  });

  it('reports each crashed user once when two instances sweep at the same time', async () => {
    const [crashed, a, b] = [await instance(), await instance(), await instance()];
    const users = Array.from({ length: 60 }, (_, i) => String(1000 + i));
    await Promise.all(users.map((user) => crashed.connected(user, `x${user}`, T0)));
    const rounds = await Promise.all([
      a.sweep(T0 + TTL),
      b.sweep(T0 + TTL),
      a.sweep(T0 + TTL + 1),
      b.sweep(T0 + TTL + 1),
    ]);
    const reported = rounds.flat();
    expect(reported.map((t) => t.userId).sort()).toEqual(users);
    expect(reported.every((t) => !t.online && t.lastSeenAt === T0)).toBe(true);
  });

  it('answers stateOf for unknown, duplicate and mixed users', async () => {
    const a = await instance();
    await a.connected('1', 'c1', T0);
    await a.connected('2', 'c2', T0);
    await a.disconnected('2', 'c2', T0 + 50);
    const states = await a.stateOf(['1', '2', '3', '1'], T0 + 100);
    expect(states).toEqual(
      new Map([
        ['1', { online: true, lastSeenAt: null }],
        ['2', { online: false, lastSeenAt: T0 + 50 }],
        ['3', { online: false, lastSeenAt: null }],
      ]),
    );
    expect(await a.stateOf([], T0)).toEqual(new Map());
  });

  it('refresh extends only connections this instance opened and has not closed', async () => {
    const [a, b] = [await instance(), await instance()];
    await a.connected('1', 'c1', T0);
    await a.disconnected('1', 'c1', T0 + 10);
    await a.refresh([{ userId: '1', connectionId: 'c1' }], T0 + 20);
    expect((await a.stateOf(['1'], T0 + 30)).get('1')).toEqual({ online: false, lastSeenAt: T0 + 10 });

    await a.connected('2', 'c2', T0);
    // Another instance's heartbeat for it does not count: only its owner's does.
    await b.refresh([{ userId: '2', connectionId: 'c2' }], T0 + 50_000);
    expect(await b.sweep(T0 + TTL)).toEqual([offline('2', T0)]);
  });

  it('writes back, at its next refresh, a connection swept while its instance stalled', async () => {
    const [stalled, other] = [await instance(), await instance()];
    await stalled.connected('1', 'c1', T0);
    expect(await other.sweep(T0 + TTL)).toEqual([offline('1', T0)]);
    await stalled.refresh([{ userId: '1', connectionId: 'c1' }], T0 + TTL + 1000);
    expect((await other.stateOf(['1'], T0 + TTL + 2000)).get('1')).toEqual({ online: true, lastSeenAt: null });
    expect(await stalled.disconnected('1', 'c1', T0 + TTL + 3000)).toEqual(offline('1', T0 + TTL + 3000));
  });

  it('reports nothing for a connection that is unknown or already closed', async () => {
    const a = await instance();
    expect(await a.disconnected('1', 'never', T0)).toBeNull();
    await a.connected('1', 'c1', T0);
    expect(await a.disconnected('1', 'c1', T0 + 1)).toEqual(offline('1', T0 + 1));
    expect(await a.disconnected('1', 'c1', T0 + 2)).toBeNull();
    expect(await a.sweep(T0 + 10 * TTL)).toEqual([]);
  });

  it('keeps lastSeenAt from moving backwards', async () => {
    const a = await instance();
    await a.connected('1', 'c1', T0);
    await a.disconnected('1', 'c1', T0 + 5000);
    // A late call carrying an older time (clock skew between instances).
    await a.connected('1', 'c2', T0 + 1000);
    expect(await a.disconnected('1', 'c2', T0 + 2000)).toEqual(offline('1', T0 + 5000));
  });
}
