// Model check of the Web SDK's window (issue 15): after random server-side changes (sends from
// both sides, recalls, deletes, reads on another device) and random client disruptions (dropped
// events, delayed replies, lost connections, network-up and foreground triggers), once the
// client has recovered, its window and unread equal what `messages` and `sync` say.
import { ConversationWindow, ImClient } from '../../sdk/web/src/index';
import type { ServerEvent } from '../../sdk/web/src/events';
import { RealtimeService } from '../../src/realtime/realtime.service';
import { TestApp, issueUser } from '../helpers/test-app';
import { ApiClient, friendCid } from '../helpers/api-client';
import { hostProvider, sdkClient, SteeredTransport, until, useSdkApp } from './sdk-harness';

/** mulberry32: a small seeded generator, so a failing run can be replayed with MODEL_SEED. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const ROUNDS = 4;
const STEPS = 30;

describe('Web SDK model check: the window converges to the server', () => {
  const app = useSdkApp();
  let t: TestApp;
  let base: string;
  let api: ApiClient;
  let clients: ImClient[];
  beforeAll(() => ({ t, base, api, clients } = app));

  const seed = Number(process.env.MODEL_SEED ?? Math.floor(Math.random() * 2 ** 31));

  it.each(Array.from({ length: ROUNDS }, (_, i) => i))('round %i', async (round) => {
    const rnd = random(seed + round);
    // eslint-disable-next-line no-console
    if (round === 0) console.log(`model seed ${seed} (replay with MODEL_SEED=${seed})`);
    const [me, peer] = [await issueUser(t), await issueUser(t)];
    await api.befriend(me, peer);
    const sdk = sdkClient(base, hostProvider(t, () => me.userId).fn, clients);
    await sdk.c.login();
    await until(() => sdk.readies.length === 1, 'ready');
    const transport = new SteeredTransport(sdk.c);
    const window = new ConversationWindow(friendCid(peer), transport);
    let dropRate = 0;
    sdk.c.on('event', (e) => {
      if (rnd() >= dropRate) window.onEvent(e as ServerEvent);
    });
    // The client's own triggers (connection.ready, online, foreground) calibrate the window.
    sdk.c.setRecovery(() => window.calibrate('recover'));
    await window.calibrate('open');
    const sent: Array<{ mid: string; by: 'me' | 'peer' }> = [];
    let releaseHeld: (() => void) | null = null;
    const log: string[] = [];

    for (let step = 0; step < STEPS; step++) {
      const r = rnd();
      const pick = <T>(items: T[]): T | undefined => items[Math.floor(rnd() * items.length)];
      if (r < 0.35) {
        const by = rnd() < 0.7 ? 'peer' : 'me';
        const reply = await api.send(by === 'peer' ? peer : me, friendCid(by === 'peer' ? me : peer), `s${step}`);
        sent.push({ mid: reply.message.mid, by });
        log.push(`send ${by}`);
      } else if (r < 0.45) {
        const target = pick(sent.filter((m) => m.by === 'peer'));
        if (target) {
          const res = await api.raw.recall(peer, friendCid(me), target.mid);
          log.push(`recall ${target.mid}:${res.body.code}`);
        }
      } else if (r < 0.52) {
        const target = pick(sent.filter((m) => m.by === 'peer'));
        if (target) {
          const res = await api.raw.delete(peer, friendCid(me), target.mid);
          log.push(`delete ${target.mid}:${res.body.code}`);
        }
      } else if (r < 0.58) {
        // Me on another device reads up to the latest.
        const latest = (
          await api.window(me, friendCid(peer), {
            known_last_seq: '0',
            known_updated_at: '0',
            known_deletion_revision: '0',
          })
        ).last_seq;
        if (latest !== '0') await api.read(me, friendCid(peer), latest);
        log.push(`read elsewhere ${latest}`);
      } else if (r < 0.66) {
        t.app.get(RealtimeService).disconnectAll();
        log.push('connection lost');
      } else if (r < 0.72) {
        sdk.environment.online();
        log.push('online');
      } else if (r < 0.8) {
        dropRate = dropRate > 0 ? 0 : 0.3;
        log.push(`drop rate ${dropRate}`);
      } else if (r < 0.86) {
        if (releaseHeld) {
          releaseHeld();
          releaseHeld = null;
          log.push('release held reply');
        } else {
          releaseHeld = transport.holdNextReply();
          void window.calibrate('refresh').catch(() => undefined);
          log.push('calibrate with a held reply');
        }
      } else if (r < 0.93) {
        const last = window.state.messages.at(-1);
        if (last) await window.markSeen(BigInt(last.conversation_seq)).catch(() => undefined);
        log.push('seen latest');
      } else {
        sdk.environment.foreground();
        log.push('foreground');
      }
    }

    // Quiescence: everything delivered, nothing held, then the network-up trigger alone must
    // bring the window to the server's state (no explicit calibration by the test).
    dropRate = 0;
    releaseHeld?.();
    sdk.environment.online();
    const expected = () =>
      api.window(me, friendCid(peer), { known_last_seq: '0', known_updated_at: '0', known_deletion_revision: '0' });
    const homeUnread = async () =>
      (await api.syncAll(me)).items.find((i) => i.conversation_id === friendCid(peer))?.unread;
    let server = await expected();
    let home = await homeUnread();
    const view = (m: {
      mid: string;
      conversation_seq: string;
      status: string;
      content: unknown;
      updated_at: number;
    }) => [m.mid, m.conversation_seq, m.status, JSON.stringify(m.content), m.updated_at];
    const context = `seed ${seed} round ${round}: ${log.join(', ')}`;
    // The client may still be finishing work (a read it held back until the window was whole):
    // wait until the window, the server's window and sync all agree.
    const same = () =>
      JSON.stringify(window.state.messages.map(view)) === JSON.stringify(server.messages.map(view)) &&
      String(window.state.readSeq) === server.read_seq &&
      window.state.unread === server.unread &&
      server.unread === home;
    const deadline = Date.now() + 8000;
    while (!same() && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      server = await expected();
      home = await homeUnread();
    }
    expect({ context, window: window.state.messages.map(view) }).toEqual({
      context,
      window: server.messages.map(view),
    });
    expect({ context, read: String(window.state.readSeq), unread: window.state.unread }).toEqual({
      context,
      read: server.read_seq,
      unread: server.unread,
    });
    expect({ context, unread: window.state.unread }).toEqual({ context, unread: home });
  });
});
