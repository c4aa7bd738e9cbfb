// Black-box review of the before-send hook (docs/host-integration.md, "Before-send hook").
import { randomBytes } from 'node:crypto';
import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { ApiClient, cmid, friendCid, groupCid } from '../helpers/api-client';
import { connect, listen, RtClient } from '../helpers/realtime';
import { IssuedUser, TestApp, hostAuth, randomGroupId, startTestApp } from '../helpers/test-app';

jest.setTimeout(180_000);

interface Call {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}
type Handler = (call: Call, res: ServerResponse) => void;

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const FAILURE_MSG = 'the message could not be checked; try again later';

describe('host integration review: before-send hook', () => {
  let receiver: Server;
  const calls: Call[] = [];
  let handler: Handler = (_c, res) => json(res, { action: 'allow' });
  let allowApp: TestApp;
  let rejectApp: TestApp;
  let api: ApiClient;
  let rapi: ApiClient;
  const clients: RtClient[] = [];

  function json(res: ServerResponse, body: unknown, status = 200): void {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  }

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const call = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        calls.push(call);
        handler(call, res);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = (receiver.address() as AddressInfo).port;
    const base = {
      WEBHOOK_BEFORE_SEND_SECRET: SECRET,
      WEBHOOK_BEFORE_SEND_TIMEOUT_MS: '400',
    };
    allowApp = await startTestApp({ ...base, WEBHOOK_BEFORE_SEND_URL: `http://127.0.0.1:${port}/allow` });
    rejectApp = await startTestApp({
      ...base,
      WEBHOOK_BEFORE_SEND_URL: `http://127.0.0.1:${port}/reject`,
      WEBHOOK_BEFORE_SEND_ON_FAILURE: 'reject',
    });
    api = new ApiClient(allowApp);
    rapi = new ApiClient(rejectApp);
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await allowApp?.close();
    await rejectApp?.close();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });
  beforeEach(() => {
    calls.length = 0;
    handler = (_c, res) => json(res, { action: 'allow' });
  });

  async function pair(client: ApiClient): Promise<[IssuedUser, IssuedUser]> {
    const [a, b] = await client.users(2);
    await client.befriend(a, b);
    return [a, b];
  }
  /** The texts in the one-to-one conversation as `b` sees it. */
  async function textsSeenBy(client: ApiClient, b: IssuedUser, a: IssuedUser): Promise<unknown[]> {
    const w = await client.raw.messages(b, {
      conversation_id: friendCid(a),
      known_last_seq: '0',
      known_updated_at: '0',
      known_deletion_revision: '0',
    });
    const messages = (w.body.data?.messages ?? w.body.data?.items ?? []) as Array<{ content: unknown }>;
    return messages.map((m) => m.content);
  }
  const send = (client: ApiClient, a: IssuedUser, b: IssuedUser, content: unknown, type = 'text', id = cmid()) =>
    client.raw.send(a, { conversation_id: friendCid(b), client_message_id: id, type, content });

  it('signs the request (standardwebhooks verifies it) and sends the documented body', async () => {
    const [a, b] = await pair(api);
    const id = cmid();
    const res = await send(api, a, b, { text: 'hello bob', junk: 1 }, 'text', id);
    expect(res.body.code).toBe(0);
    expect(calls).toHaveLength(1);
    const payload = new Webhook(SECRET).verify(calls[0].body, calls[0].headers as Record<string, string>) as {
      type: string;
      data: Record<string, unknown>;
    };
    expect(payload.type).toBe('message.before_send');
    expect(payload.data).toEqual({
      sender_id: a.userId,
      conversation: { type: 'direct', conversation_id: friendCid(b), peer_id: b.userId },
      message: { type: 'text', content: { text: 'hello bob' }, client_message_id: id },
    });
    expect(calls[0].headers['content-type']).toMatch(/application\/json/);
    // a tampered body does not verify
    expect(() =>
      new Webhook(SECRET).verify(calls[0].body.replace('hello', 'jello'), calls[0].headers as Record<string, string>),
    ).toThrow();
  });

  it('group messages name the group', async () => {
    const [a, b] = await api.users(2);
    const gid = randomGroupId();
    await api.createGroup(a, [b], { group_id: gid });
    calls.length = 0;
    const res = await api.raw.send(a, {
      conversation_id: groupCid(gid),
      client_message_id: cmid(),
      type: 'custom',
      content: { data: { k: 1 } },
    });
    expect(res.body.code).toBe(0);
    const body = JSON.parse(calls[0].body);
    expect(body.data.conversation).toEqual({ type: 'group', conversation_id: groupCid(gid), group_id: gid });
  });

  it('reject: 1203 with the cleaned reason, nothing stored, no event', async () => {
    const [a, b] = await pair(api);
    const reason = `line1\nline2\tx\u202Eevil\u0007${'y'.repeat(400)}`;
    handler = (_c, res) => json(res, { action: 'reject', reason });
    const res = await send(api, a, b, { text: 'bad' });
    expect(res.body.code).toBe(1203);
    expect(res.body.data).toBeNull();
    const msg = res.body.msg as string;
    expect(msg.startsWith('line1 line2 x')).toBe(true);
    for (const ch of ['\n', '\t', '\u202E', '\u0007']) expect(msg).not.toContain(ch);
    expect(msg.length).toBeLessThanOrEqual(200);
    expect(await textsSeenBy(api, b, a)).toEqual([]);

    handler = (_c, res) => json(res, { action: 'reject' });
    const plain = await send(api, a, b, { text: 'bad' });
    expect(plain.body).toEqual({ code: 1203, msg: 'the message was refused', data: null });
  });

  it('a rejected message retried with the same client_message_id asks the hook again', async () => {
    const [a, b] = await pair(api);
    handler = (_c, res) => json(res, { action: 'reject', reason: 'no' });
    const id = cmid();
    expect((await send(api, a, b, { text: 'retry' }, 'text', id)).body.code).toBe(1203);
    handler = (_c, res) => json(res, { action: 'allow' });
    expect((await send(api, a, b, { text: 'retry' }, 'text', id)).body.code).toBe(0);
    expect(calls).toHaveLength(2);
  });

  it('replace: reply, store and event carry the replacement; a retry returns it without calling the hook', async () => {
    const [a, b] = await pair(api);
    const url = await listen(allowApp);
    const cb = await connect(url, { auth: { token: b.token } });
    clients.push(cb);
    handler = (_c, res) => json(res, { action: 'replace', content: { text: 'oh **** it', extra: 'dropped' } });
    const id = cmid();
    const res = await send(api, a, b, { text: 'oh darn it' }, 'text', id);
    expect(res.body.code).toBe(0);
    expect(res.body.data.message.content).toEqual({ text: 'oh **** it' });
    const ev = await cb.waitForEvent(res.body.data.event_id, 10_000);
    expect(JSON.stringify(ev.data)).toContain('oh **** it');
    expect(JSON.stringify(ev.data)).not.toContain('darn');
    expect(await textsSeenBy(api, b, a)).toEqual([{ text: 'oh **** it' }]);

    const retry = await send(api, a, b, { text: 'oh darn it' }, 'text', id);
    expect(retry.body.code).toBe(0);
    expect(retry.body.data.message.mid).toBe(res.body.data.message.mid);
    expect(retry.body.data.event_id).toBe(res.body.data.event_id);
    expect(calls).toHaveLength(1);
    // the key reused with different content is still refused
    const other = await send(api, a, b, { text: 'something else' }, 'text', id);
    expect(other.body.code).toBe(1004);
  });

  it('5 identical sends at once with a replacing hook: one stored message', async () => {
    const [a, b] = await pair(api);
    handler = (_c, res) => json(res, { action: 'replace', content: { text: 'replaced' } });
    const id = cmid();
    const replies = await Promise.all(Array.from({ length: 5 }, () => send(api, a, b, { text: 'orig' }, 'text', id)));
    for (const r of replies) expect(r.body.code).toBe(0);
    expect(new Set(replies.map((r) => r.body.data.message.mid)).size).toBe(1);
    for (const r of replies) expect(r.body.data.message.content).toEqual({ text: 'replaced' });
    expect(await textsSeenBy(api, b, a)).toEqual([{ text: 'replaced' }]);
  });

  const malformed: Array<[string, Handler]> = [
    ['not JSON', (_c, res) => json(res, 'not json {')],
    ['unknown action', (_c, res) => json(res, { action: 'maybe' })],
    ['reason not a string', (_c, res) => json(res, { action: 'reject', reason: 5 })],
    ['replace without content', (_c, res) => json(res, { action: 'replace' })],
    ['replace with null content', (_c, res) => json(res, { action: 'replace', content: null })],
    [
      'replacement of another type (custom for text)',
      (_c, res) => json(res, { action: 'replace', content: { data: { x: 1 } } }),
    ],
    ['replacement too long', (_c, res) => json(res, { action: 'replace', content: { text: 'x'.repeat(5001) } })],
    ['replacement empty text', (_c, res) => json(res, { action: 'replace', content: { text: '' } })],
    ['an answer over 64 KiB', (_c, res) => json(res, { action: 'allow', pad: 'x'.repeat(70 * 1024) })],
    ['HTTP 500', (_c, res) => json(res, { action: 'allow' }, 500)],
    [
      'a redirect',
      (_c, res) => {
        res.writeHead(302, { Location: 'http://127.0.0.1:1/' });
        res.end();
      },
    ],
    ['a JSON array', (_c, res) => json(res, '[{"action":"allow"}]')],
    ['a hang past the timeout', () => undefined],
  ];

  it.each(malformed)('failure (%s) with ON_FAILURE=allow stores the message as sent', async (_what, h) => {
    const [a, b] = await pair(api);
    handler = h;
    const res = await send(api, a, b, { text: 'as sent' });
    expect(res.body.code).toBe(0);
    expect(res.body.data.message.content).toEqual({ text: 'as sent' });
    expect(await textsSeenBy(api, b, a)).toEqual([{ text: 'as sent' }]);
  });

  it.each(malformed)(
    'failure (%s) with ON_FAILURE=reject answers the generic 1203, nothing stored',
    async (_what, h) => {
      const [a, b] = await pair(rapi);
      handler = h;
      const res = await send(rapi, a, b, { text: 'as sent' });
      expect(res.body).toEqual({ code: 1203, msg: FAILURE_MSG, data: null });
      expect(await textsSeenBy(rapi, b, a)).toEqual([]);
    },
  );

  it('a message stored after a failure (ON_FAILURE=allow) is not sent to the hook again on retry', async () => {
    const [a, b] = await pair(api);
    handler = (_c, res) => json(res, { action: 'allow' }, 500);
    const id = cmid();
    const first = await send(api, a, b, { text: 'once' }, 'text', id);
    expect(first.body.code).toBe(0);
    handler = (_c, res) => json(res, { action: 'reject', reason: 'too late' });
    const retry = await send(api, a, b, { text: 'once' }, 'text', id);
    expect(retry.body.code).toBe(0);
    expect(retry.body.data.message.mid).toBe(first.body.data.message.mid);
    expect(calls).toHaveLength(1);
  });

  it('the server API send and notice do not call the hook', async () => {
    const [a, b] = await api.users(2);
    handler = (_c, res) => json(res, { action: 'reject', reason: 'never' });
    const sent = await allowApp.http
      .post('/app/server/messages/send')
      .set(...hostAuth())
      .send({
        request_id: `bs-${cmid()}`,
        sender_id: a.userId,
        to_user_id: b.userId,
        type: 'text',
        content: { text: 'host' },
      });
    expect(sent.body.code).toBe(0);
    const notice = await allowApp.http
      .post('/app/server/messages/notice')
      .set(...hostAuth())
      .send({ request_id: `bs-${cmid()}`, user_ids: [a.userId, b.userId], content: { text: 'n' } });
    expect(notice.body.code).toBe(0);
    expect(calls).toHaveLength(0);
  });

  it('custom replacement: data must be an object; description kept', async () => {
    const [a, b] = await pair(api);
    handler = (_c, res) => json(res, { action: 'replace', content: { data: { ok: true }, description: 'd' } });
    const ok = await send(api, a, b, { data: { orig: 1 } }, 'custom');
    expect(ok.body.code).toBe(0);
    expect(ok.body.data.message.content).toEqual({ data: { ok: true }, description: 'd' });
    handler = (_c, res) => json(res, { action: 'replace', content: { data: 'str' } });
    const bad = await send(rapi, ...(await pair(rapi)), { data: { orig: 1 } }, 'custom');
    expect(bad.body).toEqual({ code: 1203, msg: FAILURE_MSG, data: null });
  });

  it('client content with a lone surrogate is refused (1004 naming content.text)', async () => {
    const [a, b] = await pair(rapi);
    const client = await rapi.raw.send(a, {
      conversation_id: friendCid(b),
      client_message_id: cmid(),
      type: 'text',
      content: { text: 'a\ud800b' },
    });
    expect(client.body.code).toBe(1004);
    expect(client.body.msg).toContain('content.text');
  });

  // The replacement meets the checks every client body meets (fixed: was stored with code 0).
  it('a replacement text with a lone surrogate is a malformed answer (ON_FAILURE=reject: 1203)', async () => {
    const [a, b] = await pair(rapi);
    handler = (_c, res) => json(res, '{"action":"replace","content":{"text":"a\\ud800b"}}');
    const res = await send(rapi, a, b, { text: 'x' });
    expect(res.body).toEqual({ code: 1203, msg: FAILURE_MSG, data: null });
    expect(await textsSeenBy(rapi, b, a)).toEqual([]);
  });

  describe('media and pre-checks', () => {
    const PNG = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
      'base64',
    );

    it("an image: the hook sees the upload details; a replacement with another user's upload is a failure", async () => {
      const [a, b] = await pair(rapi);
      const mine = await rapi.upload(a, PNG, { kind: 'image', filename: 'p.png', contentType: 'image/png' });
      const theirs = await rapi.upload(b, PNG, { kind: 'image', filename: 'q.png', contentType: 'image/png' });
      const myFile = await rapi.upload(a, Buffer.from('plain file'), {
        kind: 'file',
        filename: 'f.txt',
        contentType: 'text/plain',
      });
      const mediaId = (m: unknown) =>
        String((m as { media_id?: string; id?: string }).media_id ?? (m as { id: string }).id);
      const ok = await send(rapi, a, b, { media_id: mediaId(mine) }, 'image');
      expect(ok.body.code).toBe(0);
      const seen = JSON.parse(calls[calls.length - 1].body).data.message;
      expect(seen.type).toBe('image');
      expect(seen.content).toEqual(
        expect.objectContaining({
          media_id: mediaId(mine),
          mime_type: 'image/png',
          size: PNG.length,
          file_name: 'p.png',
        }),
      );

      handler = (_c, res) => json(res, { action: 'replace', content: { media_id: mediaId(theirs) } });
      const stolen = await send(rapi, a, b, { media_id: mediaId(mine) }, 'image');
      expect(stolen.body).toEqual({ code: 1203, msg: FAILURE_MSG, data: null });

      handler = (_c, res) => json(res, { action: 'replace', content: { media_id: mediaId(myFile) } });
      const notImage = await send(rapi, a, b, { media_id: mediaId(mine) }, 'image');
      expect(notImage.body).toEqual({ code: 1203, msg: FAILURE_MSG, data: null });

      handler = (_c, res) => json(res, { action: 'replace', content: { media_id: '99999999' } });
      const missing = await send(rapi, a, b, { media_id: mediaId(mine) }, 'image');
      expect(missing.body).toEqual({ code: 1203, msg: FAILURE_MSG, data: null });
    });

    it('the hook is not called for a send refused before it (not friends, blocked, bad content)', async () => {
      const [a, b] = await api.users(2);
      handler = (_c, res) => json(res, { action: 'allow' });
      expect((await send(api, a, b, { text: 'not friends' })).body.code).not.toBe(0);
      await api.befriend(a, b);
      expect((await send(api, a, b, { text: 'x'.repeat(5001) })).body.code).toBe(1004);
      expect((await send(api, a, b, null)).body.code).toBe(1004);
      await api.block(b, a);
      expect((await send(api, a, b, { text: 'blocked' })).body.code).not.toBe(0);
      expect(calls).toHaveLength(0);
    });

    it("a slow hook does not hold back other users' sends (no transaction held open)", async () => {
      const [a, b] = await pair(api);
      const [c, d] = await pair(api);
      handler = (call, res) => {
        const body = JSON.parse(call.body);
        if (body.data.sender_id === a.userId) setTimeout(() => json(res, { action: 'allow' }), 300);
        else json(res, { action: 'allow' });
      };
      const slow = Promise.all(Array.from({ length: 5 }, (_, i) => send(api, a, b, { text: `slow ${i}` })));
      const fast = await Promise.all(Array.from({ length: 5 }, (_, i) => send(api, c, d, { text: `fast ${i}` })));
      for (const r of fast) expect(r.body.code).toBe(0);
      for (const r of await slow) expect(r.body.code).toBe(0);
    });
  });

  it('an outage is logged once (and once on recovery), the secret never; outcomes are counted', async () => {
    const lines: string[] = [];
    const port = (receiver.address() as AddressInfo).port;
    const logged = await startTestApp(
      {
        WEBHOOK_BEFORE_SEND_SECRET: SECRET,
        WEBHOOK_BEFORE_SEND_TIMEOUT_MS: '400',
        WEBHOOK_BEFORE_SEND_URL: `http://127.0.0.1:${port}/logged`,
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'json',
      },
      { logLines: lines },
    );
    try {
      const lapi = new ApiClient(logged);
      const [a, b] = await pair(lapi);
      handler = (_c, res) => json(res, { action: 'allow' }, 503);
      for (let i = 0; i < 6; i += 1) expect((await send(lapi, a, b, { text: `down ${i}` })).body.code).toBe(0);
      handler = (_c, res) => json(res, { action: 'allow' });
      for (let i = 0; i < 3; i += 1) expect((await send(lapi, a, b, { text: `up ${i}` })).body.code).toBe(0);
      const hookLines = lines.filter((l) => /before.?send/i.test(l));
      expect(hookLines.length).toBeGreaterThanOrEqual(1);
      expect(hookLines.length).toBeLessThanOrEqual(2);
      const all = lines.join('\n');
      expect(all).not.toContain(SECRET.slice(6, 30));
      const metrics = await logged.http.get('/metrics');
      const text = String(metrics.text);
      expect(text).toMatch(/im_before_send_outcomes_total\{[^}]*outcome="failure_allowed"[^}]*\} 6/);
      expect(text).toMatch(/im_before_send_outcomes_total\{[^}]*outcome="allow"[^}]*\} \d+/);
    } finally {
      await logged.close();
    }
  });
});
