// Before-send review: content checks on replacements, media, sends refused before the hook, slow hooks and outages.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient, cmid, friendCid } from '../helpers/api-client';
import { startTestApp } from '../helpers/test-app';
import { FAILURE_MSG, Handler, SECRET, allow, json, pair, send, textsSeenBy, useHookApps } from './before-send-kit';

jest.setTimeout(180_000);

describe('host integration review: before-send hook', () => {
  let receiver: Server;
  let api: ApiClient;
  let rapi: ApiClient;
  let handler: Handler = allow;
  const { calls } = useHookApps(
    { handler: () => handler, reset: () => (handler = allow) },
    (apps) => ({ receiver, api, rapi } = apps),
  );

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
