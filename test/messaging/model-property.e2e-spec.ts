// Model-based property test of the messaging core (spec 4.6, 4.7; docs/messaging.md): random
// sequences of send / read / recall / delete / leave / join / clock jumps on one group (owner +
// 3 members, a 5th user who may join later) and one one-to-one conversation. After every step
// every user's view is compared with a simple in-memory model: sync (last_seq, read_seq, unread,
// is_member), /unread (total = sum), the tail window (contiguous sequences, statuses, content) and
// the content version (updated_at strictly increases on every send/recall/delete, unchanged
// otherwise; deletion_revision counts deletes).
import fc from 'fast-check';
import type { Response } from 'supertest';
import { TestApp, bearer, startTestApp } from '../helpers/test-app';
import { ApiClient, IssuedUser, friendCid, groupCid } from '../helpers/api-client';

type Body = Record<string, unknown>;
type Status = 'normal' | 'recalled' | 'deleted';
type ConvKey = 'g' | 'd';

const RECALL_WINDOW_MS = 120_000;
const NUM_RUNS = Number(process.env.MSG_PROP_RUNS ?? 15);
const MAX_STEPS = Number(process.env.MSG_PROP_STEPS ?? 40);
const TIME_LIMIT_MS = Number(process.env.MSG_PROP_TIME_LIMIT_MS ?? 40_000);

// ---------------------------------------------------------------- operations (generated)

type Op =
  | { k: 'send'; c: ConvKey; u: number; adv: number }
  | { k: 'read'; c: ConvKey; u: number; r: number; past: boolean; adv: number }
  | { k: 'recall' | 'delete'; c: ConvKey; u: number; m: number; adv: number }
  | { k: 'leave'; u: number; status: 'left' | 'removed'; adv: number }
  | { k: 'join'; adv: number }
  | { k: 'tick'; adv: number };

/** Clock movement before an operation: mostly none or a millisecond, sometimes up to 200 s. */
const advArb = fc.oneof(
  { arbitrary: fc.constant(0), weight: 4 },
  { arbitrary: fc.integer({ min: 1, max: 3 }), weight: 3 },
  { arbitrary: fc.integer({ min: 0, max: 200_000 }), weight: 1 },
);
const convArb = fc.constantFrom<ConvKey>('g', 'g', 'd');
const userArb = fc.nat({ max: 4 });

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ k: fc.constant('send' as const), c: convArb, u: userArb, adv: advArb }), weight: 6 },
  {
    arbitrary: fc.record({
      k: fc.constant('read' as const),
      c: convArb,
      u: userArb,
      r: fc.nat({ max: 1000 }),
      past: fc.oneof({ arbitrary: fc.constant(false), weight: 3 }, { arbitrary: fc.constant(true), weight: 1 }),
      adv: advArb,
    }),
    weight: 4,
  },
  {
    arbitrary: fc.record({
      k: fc.constantFrom('recall' as const, 'delete' as const),
      c: convArb,
      u: userArb,
      m: fc.nat({ max: 1000 }),
      adv: advArb,
    }),
    weight: 4,
  },
  {
    arbitrary: fc.record({
      k: fc.constant('leave' as const),
      u: fc.nat({ max: 2 }),
      status: fc.constantFrom('left' as const, 'removed' as const),
      adv: advArb,
    }),
    weight: 1,
  },
  { arbitrary: fc.record({ k: fc.constant('join' as const), adv: advArb }), weight: 1 },
  { arbitrary: fc.record({ k: fc.constant('tick' as const), adv: fc.integer({ min: 0, max: 200_000 }) }), weight: 1 },
);

// ---------------------------------------------------------------- model

interface MMessage {
  seq: number;
  mid: string;
  sender: number;
  status: Status;
  sentAt: number;
  text: string;
}

interface MView {
  state: 'never' | 'member' | 'left';
  /** Sees sequences > from. */
  from: number;
  /** Sees sequences <= to (null: up to the conversation's last). */
  to: number | null;
  read: number;
}

interface MConv {
  key: ConvKey;
  msgs: MMessage[];
  deletes: number;
  views: MView[];
  /** Last content version seen through the reference user (owner / user 0). */
  updatedAt: number | null;
}

const visibleLast = (conv: MConv, v: MView): number => v.to ?? conv.msgs.length;
const canSee = (conv: MConv, v: MView, seq: number): boolean =>
  v.state !== 'never' && seq > v.from && seq <= visibleLast(conv, v);
const unreadOf = (conv: MConv, u: number): number => {
  const v = conv.views[u];
  if (v.state === 'never') return 0;
  return conv.msgs.filter(
    (m) => m.seq > Math.max(v.from, v.read) && m.seq <= visibleLast(conv, v) && m.sender !== u && m.status === 'normal',
  ).length;
};

class CheckError extends Error {}
function same(label: string, actual: unknown, expected: unknown): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected))
    throw new CheckError(`${label}: expected ${JSON.stringify(expected)}, actual ${JSON.stringify(actual)}`);
}
function codeIn(label: string, response: Response, codes: number[]): number {
  const code = (response.body as { code?: unknown }).code;
  if (response.status !== 200 || typeof code !== 'number' || !codes.includes(code)) {
    throw new CheckError(
      `${label}: expected HTTP 200 with code in ${JSON.stringify(codes)}, actual HTTP ${response.status} ${JSON.stringify(response.body)}`,
    );
  }
  return code;
}

describe('Messaging core: model-based property', () => {
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
    // A still clock, moved only by the operations, makes the recall window exact.
    t.clock.set(Date.now());
  });
  afterAll(() => t.close());

  it(
    'sync, unread, windows and content versions always equal the model',
    async () => {
      const names = ['owner', 'm1', 'm2', 'm3', 'outsider'];
      let runNo = 0;
      let totalSteps = 0;
      const stats: Record<string, number> = {};

      const property = fc.asyncProperty(
        fc.array(opArb, { minLength: 1, maxLength: MAX_STEPS, size: 'max' }),
        async (ops) => {
          runNo += 1;
          // ---- fresh world per run
          const users: IssuedUser[] = await api.users(names.length);
          const publicId = await api.createGroup(users[0], [users[1], users[2], users[3]]);
          await api.befriend(users[0], users[1]);
          const convIds: Record<ConvKey, (u: number) => string> = {
            g: () => groupCid(publicId),
            d: (u) => friendCid(users[u === 0 ? 1 : 0]),
          };
          const member = (): MView => ({ state: 'member', from: 0, to: null, read: 0 });
          const never = (): MView => ({ state: 'never', from: 0, to: null, read: 0 });
          const model: Record<ConvKey, MConv> = {
            g: {
              key: 'g',
              msgs: [],
              deletes: 0,
              views: [member(), member(), member(), member(), never()],
              updatedAt: null,
            },
            d: {
              key: 'd',
              msgs: [],
              deletes: 0,
              views: [member(), member(), never(), never(), never()],
              updatedAt: null,
            },
          };
          const log: string[] = [
            `run ${runNo}: group ${publicId}; users ${users.map((u, i) => `${names[i]}=${u.userId}`).join(', ')}`,
          ];
          let textNo = 0;

          const post = (u: number, path: string, body: Body) =>
            t.http
              .post(path)
              .set(...bearer(users[u].token))
              .send(body);
          const get = (u: number, path: string, query: Body = {}) =>
            t.http
              .get(path)
              .query(query)
              .set(...bearer(users[u].token));

          /** Content-changing step (send / recall / delete succeeded with a change) or not. */
          const step = async (op: Op): Promise<{ text: string; changed: ConvKey | null; noVersionCheck?: boolean }> => {
            if (op.adv) t.clock.advance(op.adv);
            const now = t.clock.now();
            const adv = op.adv ? ` [+${op.adv}ms]` : '';
            switch (op.k) {
              case 'tick':
                return { text: `tick${adv}`, changed: null };
              case 'join': {
                const v = model.g.views[4];
                if (v.state !== 'never') return { text: `join: outsider already joined, skipped${adv}`, changed: null };
                await api.addMembers(users[0], publicId, [users[4]]);
                const last = model.g.msgs.length;
                model.g.views[4] = { state: 'member', from: last, to: null, read: last };
                return { text: `outsider joins at seq ${last}${adv}`, changed: null, noVersionCheck: true };
              }
              case 'leave': {
                const candidates = [1, 2, 3, 4].filter((u) => model.g.views[u].state === 'member');
                if (candidates.length === 0) return { text: `leave: nobody to leave, skipped${adv}`, changed: null };
                const u = candidates[op.u % candidates.length];
                if (op.status === 'left') await api.leaveGroup(users[u], publicId);
                else await api.removeMembers(users[0], publicId, [users[u]]);
                const v = model.g.views[u];
                v.state = 'left';
                v.to = model.g.msgs.length;
                return {
                  text: `${names[u]} ${op.status} the group at seq ${v.to}${adv}`,
                  changed: null,
                  noVersionCheck: true,
                };
              }
              case 'send': {
                const conv = model[op.c];
                const u = op.c === 'd' ? op.u % 2 : op.u;
                const v = conv.views[u];
                const text = `m${++textNo}-${names[u]}`;
                const res = await post(u, '/app/sdk/messages/send', {
                  conversation_id: convIds[op.c](u),
                  client_message_id: `c-${runNo}-${textNo}-${u}`,
                  type: 'text',
                  content: { text },
                });
                const label = `send by ${names[u]} in ${op.c}`;
                if (v.state === 'member') {
                  codeIn(label, res, [0]);
                  const message = (res.body as { data: { message: Body; event_id: unknown } }).data.message;
                  const seq = conv.msgs.length + 1;
                  same(`${label}: conversation_seq`, message.conversation_seq, String(seq));
                  same(`${label}: status`, message.status, 'normal');
                  conv.msgs.push({ seq, mid: String(message.mid), sender: u, status: 'normal', sentAt: now, text });
                  return { text: `${label} -> seq ${seq} mid ${String(message.mid)}${adv}`, changed: op.c };
                }
                const code = codeIn(label, res, v.state === 'left' ? [1203] : [1201, 1203]);
                return { text: `${label} (${v.state}) -> ${code}${adv}`, changed: null };
              }
              case 'read': {
                const conv = model[op.c];
                const u = op.c === 'd' ? op.u % 2 : op.u;
                const v = conv.views[u];
                const last = visibleLast(conv, v);
                // Mostly within [0, last]; sometimes last + 1 or last + 2.
                const r = op.past ? last + 1 + (op.r % 2) : op.r % (last + 1);
                const res = await post(u, '/app/sdk/messages/read', {
                  conversation_id: convIds[op.c](u),
                  read_seq: String(r),
                });
                const label = `read by ${names[u]} in ${op.c} up to ${r} (visible last ${last}, read_seq ${v.read})`;
                if (v.state === 'never') {
                  codeIn(label, res, [1201]);
                  return { text: `${label} -> 1201${adv}`, changed: null };
                }
                if (r > last) {
                  codeIn(label, res, [1004]);
                  return { text: `${label} -> 1004${adv}`, changed: null };
                }
                codeIn(label, res, [0]);
                v.read = Math.max(v.read, r);
                const data = (res.body as { data: Body }).data;
                same(
                  `${label}: reply {read_seq, unread}`,
                  { read_seq: data.read_seq, unread: data.unread },
                  { read_seq: String(v.read), unread: unreadOf(conv, u) },
                );
                return { text: `${label} -> read_seq ${v.read}${adv}`, changed: null };
              }
              case 'recall':
              case 'delete': {
                const conv = model[op.c];
                if (conv.msgs.length === 0)
                  return { text: `${op.k} in ${op.c}: no message, skipped${adv}`, changed: null };
                const msg = conv.msgs[op.m % conv.msgs.length];
                const actors = op.c === 'd' ? [0, 1] : [0, 1, 2, 3, 4].filter((u) => conv.views[u].state === 'member');
                const u = actors[op.u % actors.length];
                const v = conv.views[u];
                const isOwner = op.c === 'g' && u === 0;
                const isSender = msg.sender === u;
                const elapsed = now - msg.sentAt;
                const before = msg.status;
                const res = await post(u, `/app/sdk/messages/${op.k}`, {
                  conversation_id: convIds[op.c](u),
                  mid: msg.mid,
                });
                const label = `${op.k} of seq ${msg.seq} (by ${names[msg.sender]}, ${before}, ${elapsed} ms old) by ${names[u]} in ${op.c}`;
                const visible = canSee(conv, v, msg.seq);
                let code: number;
                let permitted: boolean;
                if (op.k === 'recall') {
                  const boundary = isSender && !isOwner && Math.abs(elapsed - RECALL_WINDOW_MS) <= 1;
                  permitted = isOwner || (isSender && elapsed <= RECALL_WINDOW_MS);
                  if (before === 'deleted') code = codeIn(`${label} (already deleted)`, res, [0, 1207, 1208]);
                  else if (boundary) code = codeIn(`${label} (window boundary)`, res, [0, 1208]);
                  else if (before === 'recalled')
                    code = codeIn(`${label} (repeat)`, res, permitted ? [0] : visible ? [0, 1208] : [0, 1207, 1208]);
                  else if (permitted) code = codeIn(label, res, [0]);
                  else code = codeIn(label, res, visible ? [1208] : [1207, 1208]);
                  if (code === 0 && before === 'normal') {
                    msg.status = 'recalled';
                    return { text: `${label} -> recalled${adv}`, changed: op.c };
                  }
                } else {
                  permitted = isOwner || isSender;
                  if (before === 'deleted')
                    code = codeIn(`${label} (repeat)`, res, permitted ? [0] : visible ? [0, 1208] : [0, 1207, 1208]);
                  else if (permitted) code = codeIn(label, res, [0]);
                  else code = codeIn(label, res, visible ? [1208] : [1207, 1208]);
                  if (code === 0 && before !== 'deleted') {
                    msg.status = 'deleted';
                    conv.deletes += 1;
                    return { text: `${label} -> deleted${adv}`, changed: op.c };
                  }
                }
                return { text: `${label} -> ${code} (no change)${adv}`, changed: null };
              }
            }
          };

          /** Every message of the user's window, paging back from the tail when needed. */
          const window = async (u: number, c: ConvKey, label: string) => {
            const res = await get(u, '/app/sdk/messages', {
              conversation_id: convIds[c](u),
              known_last_seq: '0',
              known_updated_at: '0',
              known_deletion_revision: '0',
            });
            codeIn(label, res, [0]);
            const data = (res.body as { data: Body }).data;
            const messages = [...(data.messages as Body[])];
            let hasMoreBefore = data.has_more_before as boolean;
            let guard = 0;
            while (hasMoreBefore && messages.length > 0 && guard++ < 20) {
              const page = await get(u, '/app/sdk/messages', {
                conversation_id: convIds[c](u),
                before_seq: String(messages[0].conversation_seq),
              });
              codeIn(`${label} before_seq ${String(messages[0].conversation_seq)}`, page, [0]);
              const pd = (page.body as { data: Body }).data;
              messages.unshift(...(pd.messages as Body[]));
              hasMoreBefore = pd.has_more_before as boolean;
            }
            return { data, messages };
          };

          const verify = async (changed: ConvKey | null, noVersionCheck: boolean): Promise<void> => {
            const checks: Promise<void>[] = [];
            const windowVersions = new Map<string, Body>();
            const syncVersions = new Map<string, Body>();
            for (let u = 0; u < users.length; u++) {
              // sync: last_seq, read_seq, unread, is_member for each conversation; aggregate unread.
              checks.push(
                (async () => {
                  const res = await post(u, '/app/sdk/sync', {});
                  codeIn(`sync of ${names[u]}`, res, [0]);
                  const data = (res.body as { data: { conversations: { items: Body[] }; unread: Body } }).data;
                  let total = 0;
                  for (const c of ['g', 'd'] as const) {
                    const conv = model[c];
                    const v = conv.views[u];
                    const item = data.conversations.items.find((i) => i.conversation_id === convIds[c](u));
                    const label = `sync of ${names[u]}: ${c} conversation`;
                    if (v.state === 'never') {
                      if (item)
                        throw new CheckError(
                          `${label}: present for a user who never was a member: ${JSON.stringify(item)}`,
                        );
                      continue;
                    }
                    const unread = unreadOf(conv, u);
                    total += unread;
                    if (!item) {
                      if (visibleLast(conv, v) > v.from)
                        throw new CheckError(`${label}: missing although it has visible messages`);
                      continue;
                    }
                    syncVersions.set(`${u}${c}`, {
                      updated_at: item.updated_at,
                      deletion_revision: item.deletion_revision,
                    });
                    same(
                      `${label} {last_seq, read_seq, unread, is_member}`,
                      {
                        last_seq: item.last_seq,
                        read_seq: item.read_seq,
                        unread: item.unread,
                        is_member: item.is_member,
                      },
                      {
                        last_seq: String(visibleLast(conv, v)),
                        read_seq: String(v.read),
                        unread,
                        is_member: v.state === 'member',
                      },
                    );
                  }
                  same(
                    `sync of ${names[u]}: unread {total, total_unmuted}`,
                    { total: data.unread.total, total_unmuted: data.unread.total_unmuted },
                    { total, total_unmuted: total },
                  );
                })(),
              );
              // /unread: the absolute badge.
              checks.push(
                (async () => {
                  const res = await get(u, '/app/sdk/unread');
                  codeIn(`unread of ${names[u]}`, res, [0]);
                  const data = (res.body as { data: { total: number; total_unmuted: number; conversations: Body[] } })
                    .data;
                  const expected = (['g', 'd'] as const).reduce((s, c) => s + unreadOf(model[c], u), 0);
                  same(
                    `GET /unread of ${names[u]} {total, total_unmuted}`,
                    { total: data.total, total_unmuted: data.total_unmuted },
                    { total: expected, total_unmuted: expected },
                  );
                  for (const c of ['g', 'd'] as const) {
                    const entry = data.conversations.find((i) => i.conversation_id === convIds[c](u));
                    if (entry) same(`GET /unread of ${names[u]}: ${c} entry`, entry.unread, unreadOf(model[c], u));
                  }
                })(),
              );
              // Tail window after a reset: contiguous, the model's statuses and content.
              for (const c of ['g', 'd'] as const) {
                const conv = model[c];
                const v = conv.views[u];
                if (v.state === 'never') {
                  if (c === 'g')
                    checks.push(
                      get(u, '/app/sdk/messages', {
                        conversation_id: convIds[c](u),
                        known_last_seq: '0',
                        known_updated_at: '0',
                        known_deletion_revision: '0',
                      }).then((res) => void codeIn(`messages of ${names[u]} in g (not a member)`, res, [1201])),
                    );
                  continue;
                }
                checks.push(
                  (async () => {
                    const label = `messages of ${names[u]} in ${c}`;
                    const { data, messages } = await window(u, c, label);
                    same(`${label}: outcome`, data.outcome, 'reset');
                    const last = visibleLast(conv, v);
                    same(
                      `${label}: {last_seq, read_seq, unread}`,
                      { last_seq: data.last_seq, read_seq: data.read_seq, unread: data.unread },
                      { last_seq: String(last), read_seq: String(v.read), unread: unreadOf(conv, u) },
                    );
                    const seqs = messages.map((m) => Number(m.conversation_seq));
                    for (let i = 1; i < seqs.length; i++)
                      if (seqs[i] !== seqs[i - 1] + 1)
                        throw new CheckError(`${label}: sequences not contiguous: ${JSON.stringify(seqs)}`);
                    const expected = conv.msgs.filter((m) => canSee(conv, v, m.seq));
                    same(
                      `${label}: [seq, mid, status, text]`,
                      messages.map((m) => [
                        String(m.conversation_seq),
                        String(m.mid),
                        m.status,
                        (m.content as { text?: string } | null)?.text ?? null,
                      ]),
                      expected.map((m) => [String(m.seq), m.mid, m.status, m.status === 'normal' ? m.text : null]),
                    );
                    // Content version and deletion revision, seen by members who see everything.
                    if (v.state === 'member' && v.from === 0) {
                      same(`${label}: deletion_revision`, data.deletion_revision, String(conv.deletes));
                      const updatedAt = data.updated_at as number;
                      if (u === 0) {
                        if (conv.updatedAt !== null && !noVersionCheck) {
                          if (changed === c && !(updatedAt > conv.updatedAt))
                            throw new CheckError(
                              `${label}: updated_at did not strictly increase after a change: ${conv.updatedAt} -> ${updatedAt}`,
                            );
                          if (changed !== c && updatedAt !== conv.updatedAt)
                            throw new CheckError(
                              `${label}: updated_at changed without a send/recall/delete: ${conv.updatedAt} -> ${updatedAt}`,
                            );
                        }
                        conv.updatedAt = updatedAt;
                        // The trio just read calibrates to `unchanged`.
                        const again = await get(u, '/app/sdk/messages', {
                          conversation_id: convIds[c](u),
                          known_last_seq: data.last_seq,
                          known_updated_at: String(updatedAt),
                          known_deletion_revision: data.deletion_revision,
                        });
                        codeIn(`${label}: calibration with the trio just read`, again, [0]);
                        const ad = (again.body as { data: Body }).data;
                        same(
                          `${label}: calibration with the trio just read {outcome, messages}`,
                          { outcome: ad.outcome, messages: ad.messages },
                          { outcome: 'unchanged', messages: [] },
                        );
                      }
                      windowVersions.set(`${u}${c}`, {
                        updated_at: updatedAt,
                        deletion_revision: data.deletion_revision,
                      });
                    }
                  })(),
                );
              }
            }
            const results = await Promise.allSettled(checks);
            const failures = results
              .filter((r): r is PromiseRejectedResult => r.status === 'rejected')
              .map((r) => (r.reason instanceof Error ? r.reason.message : String(r.reason)));
            // Members who see the whole conversation share its content version.
            for (const [key, w] of windowVersions) {
              const reference = windowVersions.get(`0${key[1]}`);
              if (reference && JSON.stringify(reference) !== JSON.stringify(w))
                failures.push(
                  `window of ${names[Number(key[0])]} in ${key[1]} {updated_at, deletion_revision} ${JSON.stringify(w)} differs from the owner's ${JSON.stringify(reference)}`,
                );
            }
            // The home list and the window agree on the calibration values.
            for (const [key, w] of windowVersions) {
              const item = syncVersions.get(key);
              if (item && JSON.stringify(item) !== JSON.stringify(w))
                failures.push(
                  `sync vs window of ${names[Number(key[0])]} in ${key[1]} {updated_at, deletion_revision}: sync ${JSON.stringify(item)}, window ${JSON.stringify(w)}`,
                );
            }
            if (failures.length) throw new CheckError(failures.join('\n'));
          };

          try {
            await verify(null, true);
            for (const op of ops) {
              log.push(`(op ${JSON.stringify(op)})`);
              const { text, changed, noVersionCheck } = await step(op);
              log[log.length - 1] = text;
              totalSteps += 1;
              const outcome = /-> (\d+|recalled|deleted|seq|read_seq)/.exec(text);
              const key = `${op.k}${outcome ? ` ${outcome[1]}` : ''}`;
              stats[key] = (stats[key] ?? 0) + 1;
              await verify(changed, noVersionCheck ?? false);
            }
          } catch (error) {
            const message = error instanceof Error ? error.message : String(error);
            throw new Error(`${message}\n--- steps (the last one failed its checks) ---\n${log.join('\n')}`);
          }
        },
      );

      const started = Date.now();
      const details = await fc.check(property, { numRuns: NUM_RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS });
      const summary = Object.entries(stats)
        .sort()
        .map(([k, n]) => `${k}: ${n}`)
        .join(', ');
      process.stdout.write(
        `[messaging-property ${t.driver}] ${details.numRuns} runs, ${totalSteps} steps in ${Date.now() - started} ms${details.interrupted ? ' (time limit reached)' : ''}; ${summary}\n`,
      );
      if (details.failed) throw new Error(fc.defaultReportMessage(details));
    },
    TIME_LIMIT_MS + 60_000,
  );
});
