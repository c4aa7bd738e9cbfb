// client.messages against the real service: the local echo and its events, a send whose reply
// is lost retried under the same client_message_id (stored once, spec 3: idempotency key),
// text, custom, image and file sends, recall and delete, read marks, the window endpoint and
// search; and the typed event API (on by type, once, off, events() as an async iterator).
import { ImError, LocalMessage, createClient } from '../../sdk/web/src/index';
import type { MessageReply } from '../../src/contract';
import { TestApp, IssuedUser } from '../helpers/test-app';
import { ApiClient, friendCid } from '../helpers/api-client';
import { hostProvider, testEnvironment, until, useSdkApp } from './sdk-harness';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

describe('Web SDK: client.messages and typed events (sdk/web/src/api/messages-api.ts)', () => {
  const app = useSdkApp();
  let t: TestApp;
  let api: ApiClient;
  beforeAll(() => ({ t, api } = app));

  /**
   * A logged-in client whose fetch a test can make lose the next reply of a path (the request
   * reached the service) or block the next request of a path (it never left).
   */
  async function login(user: IssuedUser) {
    const lose = new Set<string>();
    const block = new Set<string>();
    const posts: string[] = [];
    const fetchImpl: typeof fetch = async (input, init) => {
      const url = new URL(String(input instanceof Request ? input.url : input));
      if (block.delete(url.pathname)) throw new TypeError('fetch failed (no network)');
      if (init?.method === 'POST') posts.push(url.pathname);
      const response = await fetch(input, init);
      // The request reached the service and was answered; the client never hears it.
      if (lose.delete(url.pathname)) throw new TypeError('fetch failed (reply lost)');
      return response;
    };
    const c = createClient({
      baseUrl: app.base,
      authProvider: hostProvider(t, () => user.userId).fn,
      environment: { ...testEnvironment(), fetch: fetchImpl },
    });
    app.clients.push(c);
    await c.login();
    await until(() => c.connected, 'connected');
    return { c, lose, block, posts };
  }

  async function pair() {
    const [a, b] = await api.users(2);
    await api.befriend(a, b);
    return { a, b, cid: friendCid(b), bcid: friendCid(a) };
  }

  it('echoes a send locally, then hears it once as message.new (the echo of its own event is skipped)', async () => {
    const { a, cid } = await pair();
    const { c } = await login(a);
    const seen: string[] = [];
    c.on('message.pending', (m) => seen.push(`pending:${m.content.text as string}`));
    c.on('message.sent', ({ local, message }) =>
      seen.push(`sent:${local.client_message_id}=${message.client_message_id}`),
    );
    const news: MessageReply[] = [];
    c.on('message.new', (e) => news.push(e.data.message as MessageReply));

    const sending = c.messages.sendText(cid, 'hello');
    expect(c.messages.pending(cid)).toEqual([expect.objectContaining({ status: 'sending', type: 'text' })]);
    const reply = await sending;
    expect(reply.message).toMatchObject({
      type: 'text',
      content: { text: 'hello' },
      status: 'normal',
      sender_id: a.userId,
    });
    expect(seen).toEqual([
      'pending:hello',
      `sent:${reply.message.client_message_id}=${reply.message.client_message_id}`,
    ]);
    expect(c.messages.pending(cid)).toEqual([]);
    // Give the real-time echo time to arrive: it must not be delivered a second time.
    await api.send(a, cid, 'marker');
    await until(() => news.some((m) => (m.content as { text?: string } | null)?.text === 'marker'), 'marker');
    expect(news.filter((m) => m.mid === reply.message.mid)).toHaveLength(1);
  });

  it('keeps a send that never reached the service as failed, and retry stores it once under the same client_message_id', async () => {
    const { a, b, cid, bcid } = await pair();
    const { c, block } = await login(a);
    const failed: LocalMessage[] = [];
    c.on('message.failed', (m) => failed.push(m));

    block.add('/app/sdk/messages/send');
    const error = await c.messages.sendText(cid, 'once only').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImError);
    expect(error).toMatchObject({ kind: 'network' });
    expect(failed).toHaveLength(1);
    const [pending] = c.messages.pending();
    expect(pending).toMatchObject({
      status: 'failed',
      conversation_id: cid,
      client_message_id: failed[0].client_message_id,
    });

    const retried = await c.messages.retry(pending.client_message_id);
    expect(retried.message.client_message_id).toBe(pending.client_message_id);
    expect(c.messages.pending(cid)).toEqual([]);
    const window = await api.window(b, bcid, {
      known_last_seq: '0',
      known_updated_at: '0',
      known_deletion_revision: '0',
    });
    expect(window.messages.filter((m) => m.client_message_id === pending.client_message_id)).toHaveLength(1);

    // Nothing failed is left to retry; a retry of an unknown key is refused locally.
    await expect(c.messages.retry(pending.client_message_id)).rejects.toMatchObject({ kind: 'invalid' });
  });

  it('settles a send whose reply was lost by its real-time echo: message.sent, once, nothing left to retry', async () => {
    const { a, cid } = await pair();
    const { c, lose } = await login(a);
    const sent: Array<{ local: string; stored: string }> = [];
    c.on('message.sent', ({ local, message }) => sent.push({ local: local.client_message_id, stored: message.mid }));
    const news: string[] = [];
    c.on('message.new', (e) => news.push(e.data.message.mid));

    lose.add('/app/sdk/messages/send');
    const error = await c.messages.sendText(cid, 'stored, reply lost').catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'network' });
    // The message was stored: its message.new settles the local echo, failed or not yet.
    await until(() => sent.length === 1, 'the echo settling the send');
    expect(c.messages.pending()).toEqual([]);
    expect(news).toEqual([sent[0].stored]);
    await expect(c.messages.retry(sent[0].local)).rejects.toMatchObject({ kind: 'invalid' });
  });

  it('tells the list store when a failed message is discarded', async () => {
    const { a, cid } = await pair();
    const { c, block } = await login(a);
    await c.conversationList.load();
    const discarded: string[] = [];
    c.on('message.discarded', (m) => discarded.push(m.client_message_id));
    block.add('/app/sdk/messages/send');
    await c.messages.sendText(cid, 'never sent').catch(() => undefined);
    const [failed] = c.messages.pending(cid);
    expect(c.conversationList.get(cid)?.pending).toMatchObject({ client_message_id: failed.client_message_id });
    c.messages.discard(failed.client_message_id);
    expect(discarded).toEqual([failed.client_message_id]);
    expect(c.conversationList.get(cid)?.pending).toBeNull();
  });

  it('keeps a refused send as failed with the service code, and discard forgets it', async () => {
    const { a, cid } = await pair();
    const { c } = await login(a);
    const refused = await c.messages
      .send({ conversation_id: cid, type: 'text', content: { text: '   ' } })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ kind: 'rejected', code: 1004 });
    const [failed] = c.messages.pending(cid);
    expect(failed.error).toMatchObject({ code: 1004 });
    c.messages.discard(failed.client_message_id);
    expect(c.messages.pending(cid)).toEqual([]);
  });

  it('sends custom, image and file messages (the upload, then the message naming it)', async () => {
    const { a, cid } = await pair();
    const { c } = await login(a);
    const custom = await c.messages.sendCustom(cid, { kind: 'card', n: 1 }, { description: 'a card' });
    expect(custom.message).toMatchObject({
      type: 'custom',
      content: { data: { kind: 'card', n: 1 }, description: 'a card' },
    });

    const image = await c.messages.sendImage(cid, new Blob([PNG], { type: 'image/png' }), {
      name: 'dot.png',
      width: 1,
      height: 1,
    });
    expect(image.message).toMatchObject({
      type: 'image',
      content: expect.objectContaining({ width: 1, height: 1, file_name: 'dot.png' }),
    });
    const mediaId = (image.message.content as { media_id: string }).media_id;
    const bytes = Buffer.from(await (await c.media.download(mediaId)).arrayBuffer());
    expect(bytes.equals(PNG)).toBe(true);

    const file = await c.messages.sendFile(cid, new Blob([PNG], { type: 'image/png' }), { name: 'dot-as-file.png' });
    expect(file.message).toMatchObject({
      type: 'file',
      content: expect.objectContaining({ file_name: 'dot-as-file.png' }),
    });
  });

  it('echoes an image while it uploads, keeps a failed upload for retry, and a retry after a lost send does not upload again', async () => {
    const { a, b, cid, bcid } = await pair();
    const { c, lose, block, posts } = await login(a);
    const events: string[] = [];
    c.on('message.pending', (m) => events.push(`pending:${m.type}:${String(m.content.file_name)}`));
    c.on('message.progress', (m) => events.push(`progress:${m.progress?.loaded}/${m.progress?.total}`));
    c.on('message.failed', (m) => events.push(`failed:${m.error?.kind}`));
    const png = new Blob([PNG], { type: 'image/png' });

    // The upload's reply is lost: the message stays failed, with its bytes.
    lose.add('/app/sdk/media/upload');
    const sending = c.messages.sendImage(cid, png, { name: 'dot.png', width: 1, height: 1 });
    const [echo] = c.messages.pending(cid);
    expect(echo).toMatchObject({
      type: 'image',
      status: 'sending',
      content: { file_name: 'dot.png', size: PNG.length },
    });
    await expect(sending).rejects.toMatchObject({ kind: 'network' });
    expect(c.messages.pending(cid)).toEqual([expect.objectContaining({ status: 'failed', type: 'image' })]);

    // Retry uploads again; then the send does not get out, and a second retry only sends.
    block.add('/app/sdk/messages/send');
    await expect(c.messages.retry(echo.client_message_id)).rejects.toMatchObject({ kind: 'network' });
    const uploadsBefore = posts.filter((p) => p === '/app/sdk/media/upload').length;
    const stored = await c.messages.retry(echo.client_message_id);
    expect(posts.filter((p) => p === '/app/sdk/media/upload').length).toBe(uploadsBefore);
    expect(stored.message).toMatchObject({
      client_message_id: echo.client_message_id,
      type: 'image',
      content: expect.objectContaining({ width: 1, height: 1, file_name: 'dot.png' }),
    });
    expect(c.messages.pending(cid)).toEqual([]);
    const window = await api.window(b, bcid, {
      known_last_seq: '0',
      known_updated_at: '0',
      known_deletion_revision: '0',
    });
    expect(window.messages.filter((m) => m.client_message_id === echo.client_message_id)).toHaveLength(1);
    expect(events[0]).toBe('pending:image:dot.png');
    expect(events).toContain('failed:network');
    expect(events.some((e) => e.startsWith('progress:'))).toBe(true);

    // An upload the service refuses (not an image) is failed with its code, for the app to discard.
    const refused = await c.messages
      .sendImage(cid, new Blob(['not an image'], { type: 'image/png' }), { name: 'fake.png' })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ kind: 'rejected', code: 1004 });
    const [bad] = c.messages.pending(cid);
    expect(bad).toMatchObject({ status: 'failed', error: expect.objectContaining({ code: 1004 }) });
    c.messages.discard(bad.client_message_id);
    expect(c.messages.pending(cid)).toEqual([]);
  });

  it('recalls and deletes, reads, pages the window and searches', async () => {
    const { a, b, cid, bcid } = await pair();
    const { c } = await login(a);
    const first = await c.messages.sendText(cid, 'needle one');
    const second = await c.messages.sendText(cid, 'needle two');
    const third = await c.messages.sendText(cid, 'plain three');

    const recalled = await c.messages.recall(cid, first.message.mid);
    expect(recalled.message).toMatchObject({ mid: first.message.mid, status: 'recalled', content: null });
    expect(recalled.event_id).toEqual(expect.any(String));
    const deleted = await c.messages.delete(cid, second.message.mid);
    expect(deleted.message).toMatchObject({ status: 'deleted' });
    // Recalling a deleted message: the service's 1207 as an ImError.
    await expect(c.messages.recall(cid, second.message.mid)).rejects.toMatchObject({ kind: 'rejected', code: 1207 });

    const latest = await c.messages.latest(cid);
    expect(latest).toMatchObject({ outcome: 'reset', conversation_id: cid, last_seq: third.message.conversation_seq });
    expect(latest.messages.map((m) => m.status)).toEqual(['recalled', 'deleted', 'normal']);
    const unchanged = await c.messages.list({
      conversation_id: cid,
      known_last_seq: latest.last_seq,
      known_updated_at: String(latest.updated_at),
      known_deletion_revision: latest.deletion_revision,
    });
    expect(unchanged.outcome).toBe('unchanged');
    const older = await c.messages.list({ conversation_id: cid, before_seq: third.message.conversation_seq });
    expect(older.messages.map((m) => m.mid)).toEqual([first.message.mid, second.message.mid]);

    const found = await c.messages.search({ conversation_id: cid, keyword: 'three' });
    expect(found.items.map((m) => m.mid)).toEqual([third.message.mid]);

    // b reads up to the last message through its own client.
    const other = await login(b);
    const read = await other.c.messages.read(bcid, third.message.conversation_seq);
    expect(read).toMatchObject({ conversation_id: bcid, read_seq: third.message.conversation_seq, unread: 0 });
  });

  it('types events by name: on, once, off and events() as an async iterator that an AbortSignal ends', async () => {
    const { a, b, cid, bcid } = await pair();
    const { c } = await login(b);
    const texts: string[] = [];
    const onNew = (e: { data: { message: { content: Record<string, unknown> | null } } }) =>
      texts.push(String(e.data.message.content?.text));
    c.on('message.new', onNew);
    let onceCount = 0;
    c.once('message.new', () => (onceCount += 1));
    const controller = new AbortController();
    const streamed: string[] = [];
    const loop = (async () => {
      for await (const e of c.events('message.new', { signal: controller.signal })) {
        // data is typed by the contract: a one-to-one event names the receiver's conversation.
        streamed.push(`${e.data.conversation_id}:${String(e.data.message.content?.text)}`);
      }
    })();

    await api.send(a, cid, 'm1');
    await api.send(a, cid, 'm2');
    await until(() => streamed.length === 2, 'two streamed events');
    c.off('message.new', onNew);
    await api.send(a, cid, 'm3');
    await until(() => streamed.length === 3, 'third streamed event');
    controller.abort();
    await loop;
    expect(texts).toEqual(['m1', 'm2']);
    expect(onceCount).toBe(1);
    expect(streamed).toEqual([`${bcid}:m1`, `${bcid}:m2`, `${bcid}:m3`]);
  });
});
