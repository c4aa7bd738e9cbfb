// The before-send hook (issue 23, docs/host-integration.md): a real HTTP receiver started here
// plays the host; every request it gets is verified with the independent `standardwebhooks`
// package. Two applications point at it, one per WEBHOOK_BEFORE_SEND_ON_FAILURE setting, and a
// third has no hook. Everything else goes through HTTP and sockets.
import { generateWebhookSecret } from '../../src/common/security/standard-webhook';
import { DEFAULT_REJECT_REASON, FAILURE_REJECT_REASON } from '../../src/messages/before-send-rules';
import { ApiClient, IssuedUser, Msg, SendReply, cmid, friendCid, groupCid } from '../helpers/api-client';
import { expectFail, expectOk } from '../helpers/assertions';
import { RtClient, connect, fence, listen } from '../helpers/realtime';
import { TestApp, startTestApp } from '../helpers/test-app';
import { Answer, HookReceiver, outcomes, pair, sendText, stored } from './before-send-receiver';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

describe('Before-send hook', () => {
  const secret = generateWebhookSecret();
  const receiver = new HookReceiver(secret);
  const rejectLog: string[] = [];
  let allowApp: TestApp;
  let rejectApp: TestApp;
  let api: ApiClient;
  let rejectApi: ApiClient;

  beforeAll(async () => {
    const base = await receiver.start();
    const hook = (path: string, onFailure: string) => ({
      WEBHOOK_BEFORE_SEND_URL: `${base}${path}`,
      WEBHOOK_BEFORE_SEND_SECRET: secret,
      WEBHOOK_BEFORE_SEND_ON_FAILURE: onFailure,
      WEBHOOK_BEFORE_SEND_TIMEOUT_MS: '1000',
    });
    allowApp = await startTestApp(hook('/hook/allow-on-failure', 'allow'));
    rejectApp = await startTestApp(
      { ...hook('/hook/reject-on-failure', 'reject'), LOG_LEVEL: 'info' },
      { logLines: rejectLog },
    );
    api = new ApiClient(allowApp);
    rejectApi = new ApiClient(rejectApp);
  });
  afterEach(() => {
    receiver.answer = () => ({ status: 200, body: { action: 'allow' } });
    receiver.releaseHanging();
    expect(receiver.signatureFailures).toEqual([]);
  });
  afterAll(async () => {
    await Promise.all([allowApp?.close(), rejectApp?.close()]);
    await receiver.stop();
  });

  it('allow: the message is stored; the host got a signed, documented request with external IDs only', async () => {
    const { a, b } = await pair(api);
    const key = cmid();
    const reply = expectOk<SendReply>(await sendText(api, a, friendCid(b), 'hello host', key));
    expect(reply.message.content).toEqual({ text: 'hello host' });
    const [call] = receiver.calls(key);
    expect(call.path).toBe('/hook/allow-on-failure');
    expect(call.body).toEqual({
      type: 'message.before_send',
      data: {
        sender_id: a.userId,
        conversation: { type: 'direct', conversation_id: friendCid(b), peer_id: b.userId },
        message: { type: 'text', content: { text: 'hello host' }, client_message_id: key },
      },
    });
    expect(call.headers['content-type']).toBe('application/json');
    // A fresh webhook-id per call.
    const second = cmid();
    expectOk(await sendText(api, a, friendCid(b), 'again', second));
    expect(receiver.calls(second)[0].headers['webhook-id']).not.toBe(call.headers['webhook-id']);
    expect(receiver.calls(second)[0].remotePort).toBe(call.remotePort);
    expect((await stored(api, b, friendCid(a))).map((m) => m.client_message_id)).toEqual([key, second]);
  });

  it('describes a group conversation by its group ID, and a custom message by its validated content', async () => {
    const [owner, member] = await api.users(2);
    const groupId = await api.createGroup(owner, [member]);
    const key = cmid();
    const custom = { data: { kind: 'poll', options: [1, 2] }, description: 'a poll', unknown_field: 'dropped' };
    expectOk(
      await api.raw.send(owner, {
        conversation_id: groupCid(groupId),
        client_message_id: key,
        type: 'custom',
        content: custom,
      }),
    );
    expect(receiver.calls(key)[0].body.data).toEqual({
      sender_id: owner.userId,
      conversation: { type: 'group', conversation_id: groupCid(groupId), group_id: groupId },
      message: { type: 'custom', content: { data: custom.data, description: 'a poll' }, client_message_id: key },
    });
  });

  describe('reject', () => {
    let a: IssuedUser;
    let b: IssuedUser;
    let bSocket: RtClient;
    beforeAll(async () => {
      ({ a, b } = await pair(api));
      bSocket = await connect(await listen(allowApp), { auth: { token: b.token } });
    });
    afterAll(() => bSocket.close());

    it("answers 1203 with the host's reason; nothing is stored and no socket hears of it", async () => {
      const before = await outcomes(allowApp);
      receiver.answer = () => ({ status: 200, body: { action: 'reject', reason: 'Links are not allowed here' } });
      const response = await sendText(api, a, friendCid(b), 'see http://spam.example');
      expectFail(response, 1203);
      expect(response.body.msg).toBe('Links are not allowed here');
      await fence(allowApp, b, [bSocket]);
      expect(bSocket.of('message.new')).toEqual([]);
      expect(await stored(api, a, friendCid(b))).toEqual([]);
      expect((await outcomes(allowApp)).reject).toBe((before.reject ?? 0) + 1);
    });

    it('cleans the reason of control characters and cuts it; no reason gives the default', async () => {
      receiver.answer = () => ({
        status: 200,
        body: { action: 'reject', reason: `bad\n\u001b[0m\u202e${'x'.repeat(300)}` },
      });
      const long = await sendText(api, a, friendCid(b), 'one');
      expectFail(long, 1203);
      expect(long.body.msg).toMatch(/^bad \[0mx+…$/);
      expect(Array.from(long.body.msg as string)).toHaveLength(200);
      receiver.answer = () => ({ status: 200, body: { action: 'reject' } });
      const bare = await sendText(api, a, friendCid(b), 'two');
      expectFail(bare, 1203);
      expect(bare.body.msg).toBe(DEFAULT_REJECT_REASON);
      expect(await stored(api, a, friendCid(b))).toEqual([]);
    });

    it('a refused message sent again is asked about again (nothing was stored)', async () => {
      const key = cmid();
      receiver.answer = () => ({ status: 200, body: { action: 'reject', reason: 'no' } });
      expectFail(await sendText(api, a, friendCid(b), 'try', key), 1203);
      receiver.answer = () => ({ status: 200, body: { action: 'allow' } });
      expectOk(await sendText(api, a, friendCid(b), 'try', key));
      expect(receiver.calls(key)).toHaveLength(2);
    });
  });

  describe('replace', () => {
    it('stores and delivers the replacement; a retry with the original content answers the stored message without asking', async () => {
      const { a, b } = await pair(api);
      const bSocket = await connect(await listen(allowApp), { auth: { token: b.token } });
      try {
        receiver.answer = (request) => ({
          status: 200,
          body: {
            action: 'replace',
            content: { text: String(request.data.message.content.text).replace('darn', '****') },
          },
        });
        const key = cmid();
        const reply = expectOk<SendReply>(await sendText(api, a, friendCid(b), 'oh darn it', key));
        expect(reply.message.content).toEqual({ text: 'oh **** it' });
        const event = await bSocket.waitForEvent(reply.event_id);
        expect((event.data.message as Msg).content).toEqual({ text: 'oh **** it' });
        expect((await stored(api, b, friendCid(a))).map((m) => m.content)).toEqual([{ text: 'oh **** it' }]);

        const retry = expectOk<SendReply>(await sendText(api, a, friendCid(b), 'oh darn it', key));
        expect(retry).toEqual(reply);
        expect(receiver.calls(key)).toHaveLength(1);
        // The key still refuses other content.
        expectFail(await sendText(api, a, friendCid(b), 'oh **** it', key), 1004, 'client_message_id');
      } finally {
        bSocket.close();
      }
    });

    it.each([
      ['another type', { data: { x: 1 } }],
      ['a blank text', { text: '   ' }],
      ['a too long text', { text: 'x'.repeat(5001) }],
      ['a text with a lone surrogate', { text: 'a\ud800b' }],
    ])('a replacement with %s is a malformed answer: the failure setting decides', async (_what, content) => {
      receiver.answer = () => ({ status: 200, body: { action: 'replace', content } });
      const allowed = await pair(api);
      const before = await outcomes(allowApp);
      expect(
        expectOk<SendReply>(await sendText(api, allowed.a, friendCid(allowed.b), 'original')).message.content,
      ).toEqual({
        text: 'original',
      });
      expect((await outcomes(allowApp)).failure_allowed).toBe((before.failure_allowed ?? 0) + 1);

      const refused = await pair(rejectApi);
      const response = await sendText(rejectApi, refused.a, friendCid(refused.b), 'original');
      expectFail(response, 1203);
      expect(response.body.msg).toBe(FAILURE_REJECT_REASON);
      expect(await stored(rejectApi, refused.a, friendCid(refused.b))).toEqual([]);
    });
  });

  describe('failures', () => {
    const cases: Array<[string, Answer]> = [
      ['hangs past the timeout', 'hang'],
      ['answers HTTP 500', { status: 500, body: { action: 'allow' } }],
      ['closes the connection halfway through its answer', 'cut'],
      ['answers a redirect', { status: 302, body: '' }],
      ['answers 200 with HTML', { status: 200, body: '<html>ok</html>' }],
      ['answers an unknown action', { status: 200, body: { action: 'maybe' } }],
    ];

    it.each(cases)(
      'when the hook %s, WEBHOOK_BEFORE_SEND_ON_FAILURE=allow stores the message as sent',
      async (_what, answer) => {
        receiver.answer = () => answer;
        const { a, b } = await pair(api);
        const key = cmid();
        const reply = expectOk<SendReply>(await sendText(api, a, friendCid(b), 'unchecked', key));
        expect(reply.message.content).toEqual({ text: 'unchecked' });
        expect(receiver.calls(key)).toHaveLength(1);
      },
    );

    it.each(cases)(
      'when the hook %s, WEBHOOK_BEFORE_SEND_ON_FAILURE=reject refuses with a generic 1203',
      async (_what, answer) => {
        receiver.answer = () => answer;
        const { a, b } = await pair(rejectApi);
        const before = await outcomes(rejectApp);
        const response = await sendText(rejectApi, a, friendCid(b), 'unchecked');
        expectFail(response, 1203);
        expect(response.body.msg).toBe(FAILURE_REJECT_REASON);
        expect(await stored(rejectApi, a, friendCid(b))).toEqual([]);
        expect((await outcomes(rejectApp)).failure_rejected).toBe((before.failure_rejected ?? 0) + 1);
      },
    );

    it('an unreachable hook counts as a failure too', async () => {
      const t = await startTestApp({
        WEBHOOK_BEFORE_SEND_URL: 'http://127.0.0.1:1/nothing-listens-here',
        WEBHOOK_BEFORE_SEND_SECRET: secret,
        WEBHOOK_BEFORE_SEND_ON_FAILURE: 'reject',
      });
      try {
        const client = new ApiClient(t);
        const { a, b } = await pair(client);
        const response = await sendText(client, a, friendCid(b), 'nobody home');
        expectFail(response, 1203);
        expect(response.body.msg).toBe(FAILURE_REJECT_REASON);
        expect(await outcomes(t)).toEqual({ failure_rejected: 1 });
      } finally {
        await t.close();
      }
    });

    it('an outage is logged once when it starts and once when it ends, not per message', async () => {
      const { a, b } = await pair(rejectApi);
      // Ends whatever outage the cases above left open.
      expectOk(await sendText(rejectApi, a, friendCid(b), 'before'));
      const from = rejectLog.length;
      receiver.answer = () => ({ status: 503, body: '' });
      for (let i = 0; i < 4; i += 1) expectFail(await sendText(rejectApi, a, friendCid(b), `down ${i}`), 1203);
      receiver.answer = () => ({ status: 200, body: { action: 'allow' } });
      expectOk(await sendText(rejectApi, a, friendCid(b), 'up'));
      expectOk(await sendText(rejectApi, a, friendCid(b), 'still up'));
      const lines = rejectLog.slice(from).filter((line) => line.includes('before-send hook'));
      expect(lines).toHaveLength(2);
      expect(lines[0]).toContain('failed (HTTP 503)');
      expect(lines[1]).toContain('answers again, after 4 failed calls');
      expect(rejectLog.join('\n')).not.toContain(secret);
    });
  });

  it('a retried send of a stored message does not call the hook again', async () => {
    const { a, b } = await pair(api);
    const key = cmid();
    const first = expectOk<SendReply>(await sendText(api, a, friendCid(b), 'once', key));
    const again = expectOk<SendReply>(await sendText(api, a, friendCid(b), 'once', key));
    expect(again).toEqual(first);
    expect(receiver.calls(key)).toHaveLength(1);
  });

  it('two identical sends at once store one message, replaced, and both answer it', async () => {
    const { a, b } = await pair(api);
    receiver.answer = () => ({ status: 200, body: { action: 'replace', content: { text: 'replaced' } } });
    const key = cmid();
    const replies = await Promise.all([1, 2].map(() => sendText(api, a, friendCid(b), 'twice at once', key)));
    const [first, second] = replies.map((r) => expectOk<SendReply>(r));
    expect(second).toEqual(first);
    expect(first.message.content).toEqual({ text: 'replaced' });
    expect((await stored(api, a, friendCid(b))).map((m) => m.client_message_id)).toEqual([key]);
  });

  it("media: the host sees the upload's details, and may replace the image's metadata but not with another user's upload", async () => {
    const { a, b } = await pair(api);
    const image = await api.upload(a, PNG, { kind: 'image', filename: 'dot.png' });
    const key = cmid();
    receiver.answer = () => ({
      status: 200,
      body: { action: 'replace', content: { media_id: image.media_id, width: 1, height: 1 } },
    });
    const reply = expectOk<SendReply>(
      await api.raw.send(a, {
        conversation_id: friendCid(b),
        client_message_id: key,
        type: 'image',
        content: { media_id: image.media_id },
      }),
    );
    expect(receiver.calls(key)[0].body.data.message).toEqual({
      type: 'image',
      client_message_id: key,
      content: {
        media_id: image.media_id,
        mime_type: 'image/png',
        size: PNG.length,
        file_name: 'dot.png',
        url: `/app/sdk/media/${image.media_id}`,
      },
    });
    expect(reply.message.content).toMatchObject({
      media_id: image.media_id,
      width: 1,
      height: 1,
      mime_type: 'image/png',
    });

    const foreign = await api.upload(b, PNG, { kind: 'image' });
    receiver.answer = () => ({ status: 200, body: { action: 'replace', content: { media_id: foreign.media_id } } });
    const kept = expectOk<SendReply>(
      await api.raw.send(a, {
        conversation_id: friendCid(b),
        client_message_id: cmid(),
        type: 'image',
        content: { media_id: image.media_id },
      }),
    );
    expect(kept.message.content).toMatchObject({ media_id: image.media_id });
  });

  it('without a hook configured, sends are unchanged and nobody is asked', async () => {
    const t = await startTestApp();
    try {
      const client = new ApiClient(t);
      const { a, b } = await pair(client);
      const key = cmid();
      const count = receiver.received.length;
      expect(expectOk<SendReply>(await sendText(client, a, friendCid(b), 'no hook', key)).message.content).toEqual({
        text: 'no hook',
      });
      expect(receiver.received.length).toBe(count);
      expect(await outcomes(t)).toEqual({});
    } finally {
      await t.close();
    }
  });
});
