// Before-send review: the signed request, and how allow, reject, replace and malformed answers decide a send.
import { Webhook } from 'standardwebhooks';
import { ApiClient, cmid, friendCid, groupCid } from '../helpers/api-client';
import { connect, listen } from '../helpers/realtime';
import { TestApp, hostAuth, randomGroupId } from '../helpers/test-app';
import { FAILURE_MSG, Handler, SECRET, allow, json, pair, send, textsSeenBy, useHookApps } from './before-send-kit';

jest.setTimeout(180_000);

describe('host integration review: before-send hook', () => {
  let allowApp: TestApp;
  let api: ApiClient;
  let rapi: ApiClient;
  let handler: Handler = allow;
  const { calls, clients } = useHookApps(
    { handler: () => handler, reset: () => (handler = allow) },
    (apps) => ({ allowApp, api, rapi } = apps),
  );

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
});
