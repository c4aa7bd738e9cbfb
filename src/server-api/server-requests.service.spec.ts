import { requestHash } from './server-requests.service';

describe('requestHash', () => {
  it('ignores request_id and the order of keys at every level', () => {
    const a = requestHash('groups.create', {
      request_id: 'a',
      name: 'x',
      member_ids: ['1', '2'],
      extra: { b: 1, a: 2 },
    });
    const b = requestHash('groups.create', {
      extra: { a: 2, b: 1 },
      member_ids: ['1', '2'],
      name: 'x',
      request_id: 'b',
    });
    expect(a).toBe(b);
  });

  it('differs by operation, by value and by array order', () => {
    const base = requestHash('groups.create', { name: 'x', member_ids: ['1', '2'] });
    expect(requestHash('groups.update', { name: 'x', member_ids: ['1', '2'] })).not.toBe(base);
    expect(requestHash('groups.create', { name: 'y', member_ids: ['1', '2'] })).not.toBe(base);
    expect(requestHash('groups.create', { name: 'x', member_ids: ['2', '1'] })).not.toBe(base);
  });
});
