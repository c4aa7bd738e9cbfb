import { nextOwner } from './group-erasure.service';

const member = (id: string, role: 'admin' | 'member', joinedAt: number) => ({ id, role, joinedAt });

describe('nextOwner (an erased owner’s successor)', () => {
  it('prefers the longest-standing admin over any older member', () => {
    expect(nextOwner([member('1', 'member', 10), member('2', 'admin', 30), member('3', 'admin', 20)])?.id).toBe('3');
  });

  it('without admins, takes the longest-standing member; equal times go to the lower row ID', () => {
    expect(nextOwner([member('9', 'member', 20), member('12', 'member', 10), member('4', 'member', 10)])?.id).toBe('4');
  });

  it('is null when nobody else is left (the group is dismissed)', () => {
    expect(nextOwner([])).toBeNull();
  });
});
