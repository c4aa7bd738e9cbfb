// Black-box tests of profiles (my profile, updateCurrentUser, public profiles, username lookup)
// and media (upload, sniffing, limits announced in sync, access-checked download, image/file
// messages), written from the spec (2.1–2.3, 4, 4.6, 7, 8), issue 3 and docs/api.md. Everything
// goes through HTTP: friendships and groups are made through their own endpoints.
import type { IncomingMessage } from 'node:http';
import type { Response } from 'supertest';
import { TestApp, bearer, startTestApp } from '../helpers/test-app';
import { ApiClient, Body, IssuedUser, Media, cmid, friendCid } from '../helpers/api-client';
import { expectFail, expectOk } from '../helpers/assertions';

// ---------- file fixtures ----------
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const pngOfSize = (size: number): Buffer => Buffer.concat([PNG, Buffer.alloc(size - PNG.length)]);
const HTML = Buffer.from(
  '<!DOCTYPE html><html><body><script>fetch("/steal?c="+document.cookie)</script></body></html>\n',
);
const SVG = Buffer.from(
  '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(document.domain)</script></svg>\n',
);
const SVG_NO_DECL = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg"><circle r="4"/><script>alert(1)</script></svg>',
);
const BOM_HTML = Buffer.concat([
  Buffer.from([0xef, 0xbb, 0xbf]),
  Buffer.from('<html><script>alert(1)</script></html>'),
]);
const BM_TEXT = Buffer.from('BMW and Mercedes: a comparison of two cars, written as plain text.\n');

function binaryParser(res: Response, callback: (error: Error | null, body: Buffer) => void): void {
  const stream = res as unknown as IncomingMessage;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => callback(null, Buffer.concat(chunks)));
}

interface Download {
  status: number;
  headers: Record<string, string>;
  bytes: Buffer;
  body: unknown;
}

const MAX_IMAGE = 3000;
const MAX_FILE = 6000;

describe('Profiles and media (black box)', () => {
  let t: TestApp;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestApp({ MEDIA_MAX_IMAGE_BYTES: String(MAX_IMAGE), MEDIA_MAX_FILE_BYTES: String(MAX_FILE) });
    api = new ApiClient(t);
  });
  afterAll(() => t.close());

  async function download(u: IssuedUser, path: string): Promise<Download> {
    const response: Response = await t.http
      .get(path)
      .set(...bearer(u.token))
      .buffer(true)
      .parse(binaryParser);
    const bytes = response.body as Buffer;
    const json = String(response.headers['content-type'] ?? '').startsWith('application/json');
    return {
      status: response.status,
      headers: response.headers as Record<string, string>,
      bytes,
      body: json ? JSON.parse(bytes.toString('utf8')) : null,
    };
  }
  const mediaPath = (id: string) => `/app/sdk/media/${id}`;
  function expectBytes(d: Download, bytes: Buffer): void {
    expect({ status: d.status, body: d.body, same: d.bytes.equals(bytes) }).toEqual({
      status: 200,
      body: null,
      same: true,
    });
  }

  // =====================================================================================
  describe('media: limits announced in sync, sniffing', () => {
    it('announces the configured limits in sync and enforces exactly them', async () => {
      const u = await api.user();
      const s = expectOk<{
        media_limits: { max_image_bytes: number; max_file_bytes: number; image_types: string[] };
        capabilities: { media: boolean };
      }>(await api.raw.sync(u));
      expect(s.capabilities.media).toBe(true);
      expect(s.media_limits).toEqual({
        max_image_bytes: MAX_IMAGE,
        max_file_bytes: MAX_FILE,
        image_types: expect.arrayContaining(['image/png', 'image/jpeg', 'image/gif', 'image/webp']),
      });
      const { max_image_bytes: maxImage, max_file_bytes: maxFile } = s.media_limits;
      expect((await api.upload(u, pngOfSize(maxImage), { kind: 'image' })).size).toBe(maxImage);
      expectFail(await api.raw.upload(u, pngOfSize(maxImage + 1), { kind: 'image' }), 1004, 'file');
      expect((await api.upload(u, Buffer.alloc(maxFile, 'a'), { kind: 'file' })).size).toBe(maxFile);
      expectFail(await api.raw.upload(u, Buffer.alloc(maxFile + 1, 'a'), { kind: 'file' }), 1004, 'file');
      expectFail(await api.raw.upload(u, Buffer.alloc(maxFile + 1, 'a')), 1004, 'file');
    });

    it('enforces kind "image" (type and limit) even when the kind field comes after the file part', async () => {
      const u = await api.user();
      expectFail(
        await api.raw.upload(u, pngOfSize(MAX_IMAGE + 1), { kind: 'image', kindAfterFile: true }),
        1004,
        'file',
      );
      expectFail(
        await api.raw.upload(u, HTML, {
          kind: 'image',
          kindAfterFile: true,
          filename: 'x.png',
          contentType: 'image/png',
        }),
        1004,
        'file',
      );
      const good = await api.raw.upload(u, PNG, { kind: 'image', kindAfterFile: true });
      expect(expectOk<{ media: Media }>(good).media).toMatchObject({ kind: 'image', mime_type: 'image/png' });
    });

    it('refuses an invalid or repeated kind with 1004 naming kind', async () => {
      const u = await api.user();
      for (const kind of ['IMAGE', 'video', ' image', 'true'])
        expectFail(await api.raw.upload(u, PNG, { kind }), 1004, 'kind');
      const twice = await t.http
        .post('/app/sdk/media/upload')
        .set(...bearer(u.token))
        .field('kind', 'file')
        .field('kind', 'image')
        .attach('file', HTML, 'a.txt');
      expectFail(twice, 1004, 'kind');
    });

    it('an HTML file named .png and claimed image/png is not an image, and as a file is stored and served as text', async () => {
      const u = await api.user();
      expectFail(
        await api.raw.upload(u, HTML, { filename: 'cute.png', contentType: 'image/png', kind: 'image' }),
        1004,
        'file',
      );
      const m = await api.upload(u, HTML, { filename: 'cute.png', contentType: 'image/png', kind: 'file' });
      expect(m).toMatchObject({ kind: 'file', mime_type: 'text/plain', size: HTML.length });
      const d = await download(u, m.url);
      expectBytes(d, HTML);
      expect(d.headers['content-type']).toMatch(/^text\/plain/);
      expect(d.headers['x-content-type-options']).toBe('nosniff');
      expect(d.headers['content-disposition']).toMatch(/^attachment/);
    });

    it.each([
      ['SVG with XML declaration', SVG],
      ['SVG without declaration', SVG_NO_DECL],
      ['HTML behind a UTF-8 BOM', BOM_HTML],
    ])('%s named .png is not an image and is never served as SVG/HTML', async (_label, data) => {
      const u = await api.user();
      expectFail(
        await api.raw.upload(u, data, { filename: 'logo.png', contentType: 'image/svg+xml', kind: 'image' }),
        1004,
        'file',
      );
      const m = await api.upload(u, data, { filename: 'logo.svg', contentType: 'image/svg+xml' });
      expect(m.kind).toBe('file');
      expect(m.mime_type).not.toMatch(/svg|html|xml/);
      const d = await download(u, m.url);
      expectBytes(d, data);
      expect(d.headers['content-type']).not.toMatch(/svg|html|xml/);
      expect(d.headers['x-content-type-options']).toBe('nosniff');
      expect(d.headers['content-disposition']).toMatch(/^attachment/);
    });

    it('a PNG claimed as text/plain named .txt is sniffed as image/png, and kind image accepts it', async () => {
      const u = await api.user();
      const m = await api.upload(u, PNG, { filename: 'notes.txt', contentType: 'text/plain', kind: 'image' });
      expect(m).toMatchObject({ kind: 'image', mime_type: 'image/png' });
      const d = await download(u, m.url);
      expectBytes(d, PNG);
      expect(d.headers['content-type']).toBe('image/png');
      expect(d.headers['content-disposition']).toMatch(/^inline/);
    });

    it('plain text starting with "BM" is text, not a BMP image', async () => {
      const u = await api.user();
      expectFail(await api.raw.upload(u, BM_TEXT, { filename: 'cars.bmp', kind: 'image' }), 1004, 'file');
      const m = await api.upload(u, BM_TEXT, { filename: 'cars.txt' });
      expect(m.mime_type).toBe('text/plain');
    });

    it('the media object and url are what the documentation promises', async () => {
      const u = await api.user();
      const m = await api.upload(u, PNG, { filename: 'cat.png', kind: 'image' });
      expect(m).toEqual({
        media_id: expect.stringMatching(/^[1-9][0-9]*$/),
        kind: 'image',
        mime_type: 'image/png',
        size: PNG.length,
        file_name: 'cat.png',
        url: `/app/sdk/media/${m.media_id}`,
        created_at: expect.any(Number),
      });
    });
  });

  // =====================================================================================
  describe('media: access and use in messages', () => {
    it('an image message carries the media and lets the peer (only) download it', async () => {
      const a = await api.user();
      const b = await api.user();
      const stranger = await api.user();
      await api.befriend(a, b);
      const m = await api.upload(a, PNG, { filename: 'pic.png', kind: 'image' });
      // before it is sent, only the uploader gets it
      expectFail(await download(b, m.url), 1207);
      const sent = expectOk<{ message: { content: Body; type: string; conversation_seq: string } }>(
        await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: cmid(),
          type: 'image',
          content: { media_id: m.media_id, width: 1, height: 1 },
        }),
      );
      expect(sent.message).toMatchObject({ type: 'image', conversation_seq: '1' });
      expect(sent.message.content).toMatchObject({
        media_id: m.media_id,
        width: 1,
        height: 1,
        mime_type: 'image/png',
        size: PNG.length,
        file_name: 'pic.png',
        url: m.url,
      });
      const w = await api.latest(b, friendCid(a));
      expect(w.messages[0].content).toEqual(sent.message.content);
      expectBytes(await download(b, m.url), PNG);
      expectBytes(await download(a, m.url), PNG);
      const refused = await download(stranger, m.url);
      expectFail(refused, 1207);
      const unknown = await download(stranger, mediaPath('9223372036854775000'));
      expectFail(unknown, 1207);
      expect(refused.body).toEqual(unknown.body);
    });

    it("a file message carries the media; a recipient cannot re-send someone else's media", async () => {
      const a = await api.user();
      const b = await api.user();
      const c = await api.user();
      await api.befriend(a, b);
      await api.befriend(b, c);
      const m = await api.upload(a, Buffer.from('%PDF-1.4\nreport\n'), { filename: 'report.pdf' });
      const sent = expectOk<{ message: { content: Body } }>(
        await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: cmid(),
          type: 'file',
          content: { media_id: m.media_id },
        }),
      );
      expect(sent.message.content).toMatchObject({
        media_id: m.media_id,
        mime_type: 'application/pdf',
        file_name: 'report.pdf',
        size: m.size,
        url: m.url,
      });
      // B (not the uploader) forwards A's media id to C: refused, nothing stored, C still cannot fetch it
      const before = await api.latest(c, friendCid(b));
      expectFail(
        await api.raw.send(b, {
          conversation_id: friendCid(c),
          client_message_id: cmid(),
          type: 'file',
          content: { media_id: m.media_id },
        }),
        [1004, 1207],
      );
      expect((await api.latest(c, friendCid(b))).last_seq).toBe(before.last_seq);
      expectFail(await download(c, m.url), 1207);
    });

    it('refuses image/file messages with a bad media reference with 1004 (or 1207 for an absent one), storing nothing', async () => {
      const a = await api.user();
      const b = await api.user();
      await api.befriend(a, b);
      const img = await api.upload(a, PNG, { kind: 'image' });
      const cases: Array<[string, Body, number[], string | undefined]> = [
        ['media_id as a JSON number', { media_id: Number(img.media_id) }, [1004], 'media_id'],
        ['empty content', {}, [1004], 'content'],
        ['missing media_id', { width: 10 }, [1004], 'media_id'],
        ['malformed media_id', { media_id: 'abc' }, [1004], 'media_id'],
        ['unknown media_id', { media_id: '9223372036854775000' }, [1004, 1207], undefined],
        ['width as a string', { media_id: img.media_id, width: '100' }, [1004], 'width'],
        ['height as a boolean', { media_id: img.media_id, height: true }, [1004], 'height'],
        ['width fractional', { media_id: img.media_id, width: 1.5 }, [1004], 'width'],
        ['width negative', { media_id: img.media_id, width: -1 }, [1004], 'width'],
      ];
      for (const [label, content, codes, field] of cases) {
        const r = await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: cmid(),
          type: 'image',
          content,
        });
        expect({ label, code: codes.includes(r.body.code) ? 'expected' : r.body.code, msg: r.body.msg }).toMatchObject({
          label,
          code: 'expected',
        });
        expectFail(r, codes, field);
      }
      expect((await api.latest(b, friendCid(a))).last_seq).toBe('0');
    });

    it('an image message must reference an image (a text upload is refused with 1004)', async () => {
      const a = await api.user();
      const b = await api.user();
      await api.befriend(a, b);
      const text = await api.upload(a, Buffer.from('just some text\n'), {
        filename: 'a.png',
        contentType: 'image/png',
      });
      expect(text.mime_type).toBe('text/plain');
      expectFail(
        await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: cmid(),
          type: 'image',
          content: { media_id: text.media_id },
        }),
        1004,
      );
      expect((await api.latest(b, friendCid(a))).last_seq).toBe('0');
    });

    it('group media: current members get it, outsiders do not; a former member keeps what was sent before leaving', async () => {
      const owner = await api.user();
      const member = await api.user();
      const leaver = await api.user();
      const outsider = await api.user();
      const groupId = await api.createGroup(owner, [member, leaver]);
      const early = await api.upload(member, PNG, { kind: 'image', filename: 'early.png' });
      expectOk(
        await api.raw.send(member, {
          conversation_id: `group_${groupId}`,
          client_message_id: cmid(),
          type: 'image',
          content: { media_id: early.media_id },
        }),
      );
      for (const u of [owner, member, leaver]) expectBytes(await download(u, early.url), PNG);
      expectFail(await download(outsider, early.url), 1207);
      await api.removeMembers(owner, groupId, [leaver]);
      expectBytes(await download(leaver, early.url), PNG);
    });

    it('a former member cannot fetch media sent into the group after he left', async () => {
      const owner = await api.user();
      const leaver = await api.user();
      const groupId = await api.createGroup(owner, [leaver]);
      await api.removeMembers(owner, groupId, [leaver]);
      const late = await api.upload(owner, PNG, { kind: 'image', filename: 'late.png' });
      expectOk(
        await api.raw.send(owner, {
          conversation_id: `group_${groupId}`,
          client_message_id: cmid(),
          type: 'image',
          content: { media_id: late.media_id },
        }),
      );
      // he cannot see the message (docs/messaging.md: keeps read access to what was sent before), so not its media either
      const w = await api.latest(leaver, `group_${groupId}`);
      expect(w.messages).toEqual([]);
      expectFail(await download(leaver, late.url), 1207);
    });

    it('a member who joined later cannot fetch media of messages sent before he joined', async () => {
      const owner = await api.user();
      const newcomer = await api.user();
      const groupId = await api.createGroup(owner, []);
      const old = await api.upload(owner, PNG, { kind: 'image', filename: 'old.png' });
      expectOk(
        await api.raw.send(owner, {
          conversation_id: `group_${groupId}`,
          client_message_id: cmid(),
          type: 'image',
          content: { media_id: old.media_id },
        }),
      );
      await api.addMembers(owner, groupId, [newcomer]);
      const w = await api.latest(newcomer, `group_${groupId}`);
      expect(w.messages).toEqual([]);
      expectFail(await download(newcomer, old.url), 1207);
    });

    it('a refused image message links nothing: the intended recipient still cannot download the media', async () => {
      const a = await api.user();
      const b = await api.user();
      await api.befriend(a, b);
      await api.unfriend(a, b);
      const m = await api.upload(a, PNG, { kind: 'image' });
      expectFail(
        await api.raw.send(a, {
          conversation_id: friendCid(b),
          client_message_id: cmid(),
          type: 'image',
          content: { media_id: m.media_id },
        }),
        1203,
      );
      expectFail(await download(b, m.url), 1207);
      // muted in a group: same
      const owner = await api.user();
      const muted = await api.user();
      const other = await api.user();
      const groupId = await api.createGroup(owner, [muted, other]);
      await api.muteMember(owner, groupId, muted, 3600);
      const gm = await api.upload(muted, PNG, { kind: 'image' });
      expectFail(
        await api.raw.send(muted, {
          conversation_id: `group_${groupId}`,
          client_message_id: cmid(),
          type: 'image',
          content: { media_id: gm.media_id },
        }),
        1203,
      );
      expectFail(await download(other, gm.url), 1207);
      // a retry of a sent image message with another media id is 1004 and links nothing
      await api.befriend(owner, other);
      const first = await api.upload(owner, PNG, { kind: 'image' });
      const second = await api.upload(owner, pngOfSize(200), { kind: 'image' });
      const key = cmid();
      expectOk(
        await api.raw.send(owner, {
          conversation_id: friendCid(other),
          client_message_id: key,
          type: 'image',
          content: { media_id: first.media_id },
        }),
      );
      expectFail(
        await api.raw.send(owner, {
          conversation_id: friendCid(other),
          client_message_id: key,
          type: 'image',
          content: { media_id: second.media_id },
        }),
        1004,
      );
      expectBytes(await download(other, first.url), PNG);
      expectFail(await download(other, second.url), 1207);
    });

    it('refuses malformed media ids on download with 1004 naming media_id', async () => {
      const u = await api.user();
      for (const id of ['abc', '0', '-5', '1.0', '99999999999999999999'])
        expectFail(await download(u, mediaPath(id)), 1004, 'media_id');
    });
  });
});
