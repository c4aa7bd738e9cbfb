// Media upload and download (spec 4, 4.6 "media", 7): multipart upload with sniffed types and
// per-kind limits, download for the uploader and for members of a conversation it was sent to.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { TransactionRunner } from '../../src/database/transaction-runner';
import { MediaRepository } from '../../src/media/media.repository';
import { mediaLimits } from '../../src/media/media-limits';
import { TestApp, bearer, startTestApp, uuidV4 } from '../helpers/test-app';
import { ApiClient, IssuedUser, SendReply, friendCid, groupCid } from '../helpers/api-client';
import { expectFail, expectOk } from '../helpers/assertions';

const MAX_IMAGE = 2048;
const MAX_FILE = 4096;

// A 1×1 PNG, and files of other types from their magic numbers.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const HTML = Buffer.from('<!doctype html><html><body><script>alert(document.cookie)</script></body></html>\n');
const padded = (head: Buffer, size: number, fill = 0): Buffer =>
  Buffer.concat([head, Buffer.alloc(size - head.length, fill)]);
const pngOfSize = (size: number): Buffer => padded(PNG, size);
const textOfSize = (size: number): Buffer => Buffer.alloc(size, 'a');

describe('Media (POST /app/sdk/media/upload, GET /app/sdk/media/:media_id)', () => {
  let t: TestApp;
  let api: ApiClient;
  let alice: IssuedUser;

  beforeAll(async () => {
    t = await startTestApp({ MEDIA_MAX_IMAGE_BYTES: String(MAX_IMAGE), MEDIA_MAX_FILE_BYTES: String(MAX_FILE) });
    api = new ApiClient(t);
    alice = await api.user();
  });
  afterAll(() => t.close());

  /** Sends the media as an image message through the API; answers the message's mid. */
  async function sendImage(sender: IssuedUser, conversationId: string, mediaId: string): Promise<string> {
    const response = await api.raw.send(sender, {
      conversation_id: conversationId,
      client_message_id: uuidV4(),
      type: 'image',
      content: { media_id: mediaId },
    });
    return expectOk<SendReply>(response).message.mid;
  }

  describe('upload', () => {
    it('stores an image and answers the media object with the sniffed type', async () => {
      t.clock.set(1_760_000_000_123);
      try {
        const response = await api.raw.upload(alice, PNG, {
          filename: 'cat.png',
          contentType: 'image/png',
          kind: 'image',
        });
        expect(response.status).toBe(200);
        expect(response.headers['cache-control']).toBe('no-store');
        expect(response.body).toEqual({
          code: 0,
          msg: 'ok',
          data: {
            media: {
              media_id: expect.stringMatching(/^[1-9][0-9]*$/),
              kind: 'image',
              mime_type: 'image/png',
              size: PNG.length,
              file_name: 'cat.png',
              url: `/app/sdk/media/${response.body.data.media.media_id}`,
              created_at: 1_760_000_000_123,
            },
          },
        });
      } finally {
        t.clock.set(Date.now());
      }
    });

    it('writes the bytes under MEDIA_DIR with a random key, no temporary file left, sha256 recorded', async () => {
      const media = await api.upload(alice, PNG, { kind: 'image' });
      const stored = await t.app.get(MediaRepository).findById(media.media_id);
      expect(stored).not.toBeNull();
      expect(stored!.storageKey).toMatch(/^[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{32}$/);
      expect(stored!.sha256).toBe(createHash('sha256').update(PNG).digest('hex'));
      const path = join(t.config.messaging.media.dir, ...stored!.storageKey.split('/'));
      expect(readFileSync(path).equals(PNG)).toBe(true);
      expect(readdirSync(join(path, '..')).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    });

    it('defaults kind to "file" and sniffs the bytes, not the client type or name (a PNG sent as text/plain x.txt is image/png)', async () => {
      const media = await api.upload(alice, PNG, { filename: 'x.txt', contentType: 'text/plain' });
      expect(media).toMatchObject({ kind: 'file', mime_type: 'image/png', file_name: 'x.txt', size: PNG.length });
    });

    it('refuses an HTML file sent as image/png with kind image (file: not an image)', async () => {
      const response = await api.raw.upload(alice, HTML, {
        filename: 'evil.png',
        contentType: 'image/png',
        kind: 'image',
      });
      expectFail(response, 1004, /^file: not an image/);
    });

    it('stores HTML as a file of type text/plain, never text/html', async () => {
      const media = await api.upload(alice, HTML, { filename: 'page.html', contentType: 'text/html' });
      expect(media).toMatchObject({ kind: 'file', mime_type: 'text/plain' });
    });

    it.each([
      { name: 'jpeg', data: padded(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), 64), mime: 'image/jpeg' },
      { name: 'gif', data: padded(Buffer.from('GIF89a'), 64), mime: 'image/gif' },
      {
        name: 'webp',
        data: padded(Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x38, 0, 0, 0]), Buffer.from('WEBPVP8 ')]), 64),
        mime: 'image/webp',
      },
      { name: 'pdf', data: Buffer.from('%PDF-1.7\n%\xe2\xe3\n1 0 obj\n', 'latin1'), mime: 'application/pdf' },
      { name: 'zip', data: padded(Buffer.from([0x50, 0x4b, 0x03, 0x04]), 64), mime: 'application/zip' },
      { name: 'gzip', data: padded(Buffer.from([0x1f, 0x8b, 0x08, 0x00]), 64), mime: 'application/gzip' },
      {
        name: 'mp4',
        data: padded(Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom')]), 64),
        mime: 'video/mp4',
      },
      { name: 'mp3', data: padded(Buffer.from('ID3\x04\x00', 'latin1'), 64), mime: 'audio/mpeg' },
      { name: 'ogg', data: padded(Buffer.from('OggS'), 64), mime: 'audio/ogg' },
      {
        name: 'wav',
        data: padded(Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x24, 0, 0, 0]), Buffer.from('WAVEfmt ')]), 64),
        mime: 'audio/wav',
      },
      { name: 'utf-8 text', data: Buffer.from('héllo, 世界 👋\n'), mime: 'text/plain' },
      { name: 'binary', data: Buffer.from([0x00, 0x01, 0x02, 0xfe, 0xff, 0x10]), mime: 'application/octet-stream' },
    ])('sniffs $name as $mime', async ({ data, mime }) => {
      const media = await api.upload(alice, data, { filename: 'blob', contentType: 'image/png' });
      expect(media.mime_type).toBe(mime);
    });

    it('keeps a UTF-8 file name, cuts paths and control characters', async () => {
      expect((await api.upload(alice, HTML, { filename: '报告 2024.txt' })).file_name).toBe('报告 2024.txt');
      expect((await api.upload(alice, HTML, { filename: '../../etc/passwd' })).file_name).toBe('passwd');
      expect((await api.upload(alice, HTML, { filename: 'C:\\Users\\me\\notes.txt' })).file_name).toBe('notes.txt');
      expect((await api.upload(alice, HTML, { filename: 'a\u202egnp.exe' })).file_name).toBe('agnp.exe');
      const long = await api.upload(alice, HTML, { filename: `${'n'.repeat(300)}.txt` });
      expect(long.file_name).toBe(`${'n'.repeat(251)}.txt`);
    });

    it('refuses a kind other than image or file', async () => {
      expectFail(await api.raw.upload(alice, PNG, { kind: 'video' }), 1004, /^kind:/);
      expectFail(await api.raw.upload(alice, PNG, { kind: '' }), 1004, /^kind:/);
    });

    describe('limits (MEDIA_MAX_IMAGE_BYTES=2048, MEDIA_MAX_FILE_BYTES=4096)', () => {
      it('accepts an image of exactly the image limit and refuses one byte more', async () => {
        expect((await api.upload(alice, pngOfSize(MAX_IMAGE), { kind: 'image' })).size).toBe(MAX_IMAGE);
        expectFail(
          await api.raw.upload(alice, pngOfSize(MAX_IMAGE + 1), { kind: 'image' }),
          1004,
          /^file: larger than the limit of 2048 bytes/,
        );
      });

      it('accepts a file of exactly the file limit and refuses one byte more', async () => {
        expect((await api.upload(alice, textOfSize(MAX_FILE))).size).toBe(MAX_FILE);
        expectFail(
          await api.raw.upload(alice, textOfSize(MAX_FILE + 1)),
          1004,
          /^file: larger than the limit of 4096 bytes/,
        );
      });

      it('lets an image-typed file grow to the file limit', async () => {
        expect(await api.upload(alice, pngOfSize(MAX_FILE), { kind: 'file' })).toMatchObject({
          size: MAX_FILE,
          mime_type: 'image/png',
          kind: 'file',
        });
      });

      it('refuses a body far over every limit while it is parsed, naming the file', async () => {
        expectFail(
          await api.raw.upload(alice, textOfSize(MAX_FILE * 4)),
          1004,
          /^file: larger than the limit of 4096 bytes/,
        );
        expectFail(
          await api.raw.upload(alice, pngOfSize(MAX_FILE * 4), { kind: 'image' }),
          1004,
          /^file: larger than the limit of 2048 bytes/,
        );
      });
    });

    describe('malformed forms are 1004 naming the field', () => {
      it('refuses an empty file', async () => {
        expectFail(await api.raw.upload(alice, Buffer.alloc(0), { filename: 'empty.txt' }), 1004, /^file: is empty/);
      });

      it('refuses a form without a file', async () => {
        const response = await t.http
          .post('/app/sdk/media/upload')
          .set(...bearer(alice.token))
          .field('kind', 'file');
        expectFail(response, 1004, /^file: is required/);
      });

      it('refuses two files', async () => {
        const response = await t.http
          .post('/app/sdk/media/upload')
          .set(...bearer(alice.token))
          .attach('file', PNG, 'a.png')
          .attach('file', PNG, 'b.png');
        expectFail(response, 1004, /^file: exactly one file/);
      });

      it('refuses a file under another field name', async () => {
        const response = await t.http
          .post('/app/sdk/media/upload')
          .set(...bearer(alice.token))
          .attach('upload', PNG, 'a.png');
        expectFail(response, 1004, /^file: exactly one file/);
      });

      it('refuses a JSON body', async () => {
        const response = await t.http
          .post('/app/sdk/media/upload')
          .set(...bearer(alice.token))
          .send({ file: PNG.toString('base64'), kind: 'image' });
        expectFail(response, 1004, /^Content-Type: use multipart\/form-data/);
      });

      it('refuses too many text fields', async () => {
        const req = t.http.post('/app/sdk/media/upload').set(...bearer(alice.token));
        for (let i = 0; i < 8; i++) void req.field(`f${i}`, 'x');
        expectFail(await req.attach('file', PNG, 'a.png'), 1004, /^file: too many form fields/);
      });

      it('refuses an over-long kind value', async () => {
        expectFail(await api.raw.upload(alice, PNG, { kind: 'i'.repeat(1000) }), 1004, /^kind: too long/);
      });

      it('refuses a truncated multipart body and other multipart types', async () => {
        const truncated = await t.http
          .post('/app/sdk/media/upload')
          .set(...bearer(alice.token))
          .set('Content-Type', 'multipart/form-data; boundary=XYZ')
          .send('--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello');
        expectFail(truncated, 1004, /^file: malformed multipart/);
        const mixed = await t.http
          .post('/app/sdk/media/upload')
          .set(...bearer(alice.token))
          .set('Content-Type', 'multipart/mixed; boundary=XYZ')
          .send('--XYZ--\r\n');
        expectFail(mixed, 1004, /^Content-Type:/);
      });
    });
  });

  describe('download', () => {
    it('streams an image to its uploader inline, with type, length, nosniff and a private cache', async () => {
      const media = await api.upload(alice, PNG, { filename: 'cat.png', kind: 'image' });
      const reply = await api.download(alice, media.media_id);
      expect(reply.status).toBe(200);
      expect(reply.bytes.equals(PNG)).toBe(true);
      expect(reply.headers['content-type']).toBe('image/png');
      expect(reply.headers['content-length']).toBe(String(PNG.length));
      expect(reply.headers['x-content-type-options']).toBe('nosniff');
      expect(reply.headers['content-disposition']).toBe(`inline; filename="cat.png"; filename*=UTF-8''cat.png`);
      expect(reply.headers['cache-control']).toMatch(/^private, max-age=\d+$/);
    });

    it('serves files as attachments with the UTF-8 name in filename*, text as UTF-8 text/plain', async () => {
      const media = await api.upload(alice, HTML, { filename: '报告 (1).html', contentType: 'text/html' });
      const reply = await api.download(alice, media.media_id);
      expect(reply.status).toBe(200);
      expect(reply.bytes.equals(HTML)).toBe(true);
      expect(reply.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(reply.headers['x-content-type-options']).toBe('nosniff');
      expect(reply.headers['content-disposition']).toBe(
        `attachment; filename="__ (1).html"; filename*=UTF-8''%E6%8A%A5%E5%91%8A%20%281%29.html`,
      );
    });

    it('names a file without a name after its ID and sniffed type', async () => {
      const media = await api.upload(alice, Buffer.from('%PDF-1.4\n'), { filename: '\u202e\u2066' });
      expect(media).toMatchObject({ file_name: '', mime_type: 'application/pdf' });
      const reply = await api.download(alice, media.media_id);
      expect(reply.headers['content-type']).toBe('application/pdf');
      expect(reply.headers['content-disposition']).toBe(
        `attachment; filename="media-${media.media_id}.pdf"; filename*=UTF-8''media-${media.media_id}.pdf`,
      );
    });

    it('serves members of a direct conversation the media was sent to, and refuses a stranger with 1207', async () => {
      const bob = await api.user();
      const carol = await api.user();
      const media = await api.upload(alice, PNG, { kind: 'image' });
      const id = media.media_id;

      const before = await api.download(bob, id);
      expectFail(before, 1207, /^media_id: media absent or not accessible/);

      await api.befriend(alice, bob);
      await sendImage(alice, friendCid(bob), id);
      await sendImage(alice, friendCid(bob), id); // the same media twice

      const reply = await api.download(bob, id);
      expect(reply.status).toBe(200);
      expect(reply.bytes.equals(PNG)).toBe(true);

      const stranger = await api.download(carol, id);
      expectFail(stranger, 1207, /^media_id: media absent or not accessible/);
    });

    it('serves whoever may see a message that carries it: a former member what was sent before they left, not after; a newcomer nothing sent before they joined', async () => {
      const dave = await api.user();
      const erin = await api.user();
      const early = await api.upload(alice, PNG, { kind: 'image' });
      const late = await api.upload(alice, PNG, { kind: 'image' });
      const pub = await api.createGroup(alice, [dave]);
      await sendImage(alice, groupCid(pub), early.media_id);
      await api.leaveGroup(dave, pub);
      await api.addMembers(alice, pub, [erin]);
      await sendImage(alice, groupCid(pub), late.media_id);
      await api.send(alice, groupCid(pub), 'hi');

      expect((await api.download(dave, early.media_id)).status).toBe(200);
      expectFail(await api.download(dave, late.media_id), 1207, /^media_id: media absent or not accessible/);
      expectFail(await api.download(erin, early.media_id), 1207, /^media_id: media absent or not accessible/);
      expect((await api.download(erin, late.media_id)).status).toBe(200);
    });

    it('stops serving the media through a message once that message is recalled or deleted (the uploader keeps it)', async () => {
      const bob = await api.user();
      await api.befriend(alice, bob);
      const cid = friendCid(bob);
      const recalled = await api.upload(alice, PNG, { kind: 'image' });
      const deleted = await api.upload(alice, PNG, { kind: 'image' });
      const twice = await api.upload(alice, PNG, { kind: 'image' });
      const recalledMid = await sendImage(alice, cid, recalled.media_id);
      const deletedMid = await sendImage(alice, cid, deleted.media_id);
      const firstOfTwo = await sendImage(alice, cid, twice.media_id);
      await sendImage(alice, cid, twice.media_id);
      await api.recall(alice, cid, recalledMid);
      await api.deleteMessage(alice, cid, deletedMid);
      await api.recall(alice, cid, firstOfTwo);
      expectFail(await api.download(bob, recalled.media_id), 1207, /^media_id: media absent or not accessible/);
      expectFail(await api.download(bob, deleted.media_id), 1207, /^media_id: media absent or not accessible/);
      expect((await api.download(bob, twice.media_id)).status).toBe(200); // its second message still carries it
      expect((await api.download(alice, recalled.media_id)).status).toBe(200);
    });

    it('answers an unknown ID exactly like an inaccessible one', async () => {
      const stranger = await api.user();
      const media = await api.upload(alice, PNG, { kind: 'image' });
      const refused = await api.download(stranger, media.media_id);
      const unknown = await api.download(stranger, '9223372036854775807');
      expectFail(unknown, 1207);
      expect(unknown.body).toEqual(refused.body);
    });

    it.each(['abc', '0', '012', '-1', '1.5', '9223372036854775808', '12abc'])(
      'refuses the malformed ID %s with 1004',
      async (id) => {
        expectFail(await api.download(alice, id), 1004, /^media_id:/);
      },
    );
  });

  describe('the exported repository (for messages)', () => {
    it('finds media only for its owner and never by a malformed ID', async () => {
      const bob = await api.user();
      const media = await api.upload(alice, PNG, { filename: 'p.png', kind: 'image' });
      const repo = t.app.get(MediaRepository);
      expect(await repo.findOwned(media.media_id, alice.id)).toEqual({
        id: media.media_id,
        kind: 'image',
        mimeType: 'image/png',
        size: PNG.length,
        fileName: 'p.png',
      });
      expect(await repo.findOwned(media.media_id, bob.id)).toBeNull();
      expect(await repo.findOwned(`${media.media_id}abc`, alice.id)).toBeNull();
      expect(
        await t.app.get(TransactionRunner).run((manager) => repo.findOwned(media.media_id, alice.id, manager)),
      ).not.toBeNull();
    });

    it('reports the limits for sync', () => {
      expect(mediaLimits(t.config)).toEqual({
        max_image_bytes: MAX_IMAGE,
        max_file_bytes: MAX_FILE,
        image_types: ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/bmp'],
      });
    });
  });

  describe('authentication', () => {
    it('requires an IM token on both endpoints (1101), and a valid one (1102)', async () => {
      const media = await api.upload(alice, PNG, { kind: 'image' });
      expectFail(await t.http.post('/app/sdk/media/upload').attach('file', PNG, 'a.png'), 1101);
      expectFail(await api.download(null, media.media_id), 1101);
      expectFail(
        await t.http
          .post('/app/sdk/media/upload')
          .set('Authorization', 'Bearer not-a-token')
          .attach('file', PNG, 'a.png'),
        1102,
      );
      const forged = await t.http.get(`/app/sdk/media/${media.media_id}`).set('Authorization', 'Bearer not-a-token');
      expectFail(forged, 1102);
    });
  });
});

describe('Media with the capability closed (CAPABILITIES_CLOSED=media)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ CAPABILITIES_CLOSED: 'media' });
  });
  afterAll(() => t.close());

  it('answers 1202 on upload and download, and stores nothing', async () => {
    const user = await new ApiClient(t).user();
    const up = await t.http
      .post('/app/sdk/media/upload')
      .set(...bearer(user.token))
      .attach('file', PNG, 'a.png');
    expectFail(up, 1202);
    expectFail(await t.http.get('/app/sdk/media/1').set(...bearer(user.token)), 1202);
    const dir = t.config.messaging.media.dir;
    expect(existsSync(dir) ? readdirSync(dir).filter((name) => statSync(join(dir, name)).isDirectory()) : []).toEqual(
      [],
    );
  });
});
