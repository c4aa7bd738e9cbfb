// Webhook review: the admin endpoints refuse bad input naming the field, and a moderator only reads.
import { AdminSession } from '../helpers/admin-client';
import { useWebhookApp } from './webhook-kit';

jest.setTimeout(240_000);

describe('host integration review: webhooks', () => {
  let owner: AdminSession;
  let moderator: AdminSession;
  const { rx, create, remove } = useWebhookApp((app) => ({ owner, moderator } = app));

  describe('admin input and roles', () => {
    it.each([
      ['no url', {}, 'url'],
      ['null url', { url: null }, 'url'],
      ['not a url', { url: 'not a url' }, 'url'],
      ['ftp url', { url: 'ftp://127.0.0.1/x' }, 'url'],
      ['credentials', { url: 'http://user:pw@127.0.0.1/x' }, 'url'],
      ['javascript', { url: 'javascript:alert(1)' }, 'url'],
      ['huge url', { url: `http://127.0.0.1/${'x'.repeat(10_000)}` }, 'url'],
      ['unknown type', { url: 'http://127.0.0.1/x', event_types: ['nope'] }, 'event_types'],
      ['types not array', { url: 'http://127.0.0.1/x', event_types: 'message.new' }, 'event_types'],
      ['empty types', { url: 'http://127.0.0.1/x', event_types: [] }, 'event_types'],
      ['per-user type', { url: 'http://127.0.0.1/x', event_types: ['conversation.read'] }, 'event_types'],
      ['huge description', { url: 'http://127.0.0.1/x', description: 'd'.repeat(100_000) }, 'description'],
      ['description lone surrogate', { url: 'http://127.0.0.1/x', description: 'a\ud800' }, 'description'],
      ['unknown field', { url: 'http://127.0.0.1/x', secret: 'whsec_AAAA' }, 'secret'],
    ])('create with %s is 1004 naming the field, nothing created', async (_w, body, field) => {
      const before = (await owner.get('/app/admin/webhooks')).body.data.endpoints.length;
      const r = await owner.post('/app/admin/webhooks/create', body);
      expect(r.body.code).toBe(1004);
      expect(r.body.msg).toContain(field);
      expect((await owner.get('/app/admin/webhooks')).body.data.endpoints.length).toBe(before);
    });

    it('update/pause/replay with bad ids name the field', async () => {
      const { id } = await create({ url: `${rx.base}/bad-input` });
      for (const [path, body, field] of [
        ['update', { id: 'nope' }, 'id'],
        ['update', { id, url: 'x' }, 'url'],
        ['update', { id, event_types: ['nope'] }, 'event_types'],
        ['pause', { id: null }, 'id'],
        ['pause', { id: 'does-not-exist-123' }, 'id'],
        ['rotate-secret', { id: {} }, 'id'],
        ['replay', { endpoint_id: id, delivery_ids: [] }, 'delivery_ids'],
        [
          'replay',
          { endpoint_id: id, delivery_ids: Array.from({ length: 101 }, (_, i) => String(i + 1)) },
          'delivery_ids',
        ],
        ['replay', { endpoint_id: id, delivery_ids: ['999999'] }, 'delivery_ids'],
      ] as Array<[string, object, string]>) {
        const r = await owner.post(`/app/admin/webhooks/${path}`, body);
        expect({ path, code: r.body.code }).toEqual({ path, code: 1004 });
        expect(r.body.msg).toContain(field);
      }
      const d = await owner.get('/app/admin/webhooks/deliveries', { endpoint_id: id, status: 'bogus' });
      expect(d.body.code).toBe(1004);
      expect(d.body.msg).toContain('status');
      await remove(id);
    });

    it('a moderator can read but not change endpoints', async () => {
      const { id } = await create({ url: `${rx.base}/mod` });
      const before = JSON.stringify(
        (await owner.get('/app/admin/webhooks')).body.data.endpoints.find((e: { id: string }) => e.id === id),
      );
      for (const [path, body] of [
        ['create', { url: `${rx.base}/mod2` }],
        ['update', { id, description: 'mod' }],
        ['pause', { id }],
        ['rotate-secret', { id }],
        ['delete', { id }],
        ['replay', { endpoint_id: id, delivery_ids: ['1'] }],
      ] as Array<[string, object]>) {
        const r = await moderator.post(`/app/admin/webhooks/${path}`, body);
        expect({ path, code: r.body.code, status: r.status }).toEqual({ path, code: 1004, status: 403 });
        expect(r.body.msg).toContain('role');
      }
      const list = (await moderator.get('/app/admin/webhooks')).body;
      expect(list.code).toBe(0);
      const after = JSON.stringify(list.data.endpoints.find((e: { id: string }) => e.id === id));
      const normalise = (s: string) =>
        s.replace(/"(lag_ms|lag_events|cursor_position|last_delivery_at|updated_at)":[^,}]*/g, '');
      expect(normalise(after)).toBe(normalise(before));
      expect(list.data.endpoints.some((e: { url: string }) => e.url.endsWith('/mod2'))).toBe(false);
      await remove(id);
    });
  });

  it('deliveries: bad cursor, unknown endpoint and a deleted endpoint name the field', async () => {
    const { id } = await create({ url: `${rx.base}/del-check` });
    const badCursor = await owner.get('/app/admin/webhooks/deliveries', { endpoint_id: id, cursor: 'garbage!' });
    expect(badCursor.body.code).toBe(1004);
    expect(badCursor.body.msg).toContain('cursor');
    const unknown = await owner.get('/app/admin/webhooks/deliveries', { endpoint_id: '987654321' });
    expect(unknown.body.code).toBe(1004);
    expect(unknown.body.msg).toContain('endpoint_id');
    expect((await remove(id)).body.code).toBe(0);
    expect((await remove(id)).body.code).toBe(1004);
    const gone = await owner.post('/app/admin/webhooks/pause', { id });
    expect(gone.body.code).toBe(1004);
    expect(gone.body.msg).toContain('id');
  });
});
