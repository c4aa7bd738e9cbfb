import { randomBytes } from 'node:crypto';
import { FriendsRepository } from '../../src/friends/friends.repository';
import { Relationships } from '../../src/friends/relationships.service';
import type { User } from '../../src/users/user';
import { GroupDirectory } from '../../src/groups/group-directory.service';
import { Seed } from '../helpers/factories';
import { randomGroupId, randomUserId } from '../helpers/test-app';
import { StoreKit, newUser, newUsers, startStoreKit } from './store-kit';

// The read services other modules use: UsersService's reads, GroupDirectory, Relationships.
describe('UsersService, GroupDirectory and Relationships reads', () => {
  let kit: StoreKit;
  let seed: Seed;
  beforeAll(async () => {
    kit = await startStoreKit();
    seed = new Seed(kit.t);
  });
  afterAll(() => kit.close());

  const sortIds = (ids: string[]) => [...ids].sort((x, y) => (BigInt(x) < BigInt(y) ? -1 : 1));

  describe('UsersService', () => {
    it('finds users by internal ID, external ID and username', async () => {
      const tag = randomBytes(4).toString('hex');
      const externalId = randomUserId('dir');
      const created = await kit.users.upsertProfile({ externalId, nickname: `Nick ${tag}`, username: `un_${tag}` });
      const other = await newUser(kit);

      expect(await kit.users.findById(created.id)).toMatchObject({
        id: created.id,
        externalId,
        nickname: `Nick ${tag}`,
        username: `un_${tag}`,
        disabled: false,
        tokenVersion: 0,
      });
      expect(await kit.users.findById('999999999999')).toBeNull();
      expect((await kit.users.findByExternalId(externalId))?.id).toBe(created.id);
      // Edge whitespace matches nobody (MySQL's PAD SPACE would match it otherwise).
      expect(await kit.users.findByExternalId(`${externalId} `)).toBeNull();
      expect(await kit.users.findByExternalId(randomUserId('none'))).toBeNull();
      expect((await kit.users.findByUsername(`un_${tag}`))?.id).toBe(created.id);
      expect(await kit.users.findByUsername('')).toBeNull();
      expect(await kit.users.findByUsername(` un_${tag}`)).toBeNull();
      // Inside a transaction, through its manager.
      expect((await kit.tx.run((m) => kit.users.findByExternalId(externalId, m)))?.id).toBe(created.id);

      const many = await kit.users.findByIds([created.id, other.internalId, created.id, '999999999999']);
      expect(sortIds(many.map((u) => u.id))).toEqual(sortIds([created.id, other.internalId]));
      expect(await kit.users.findByIds([])).toEqual([]);
      expect(await kit.users.externalIds([created.id, other.internalId, '999999999999'])).toEqual(
        new Map([
          [created.id, externalId],
          [other.internalId, other.externalId],
        ]),
      );
    });

    it('reads the auth state and counts', async () => {
      const tag = randomBytes(4).toString('hex');
      const made: User[] = [];
      for (let i = 0; i < 3; i++)
        made.push(await kit.users.upsertProfile({ externalId: randomUserId('dir'), nickname: `Pre${tag} ${i}` }));
      await kit.users.setDisabled(made[1].externalId, true);
      await kit.users.revokeTokens(made[2].externalId);

      expect(await kit.users.findAuthState(made[1].id)).toEqual({
        id: made[1].id,
        externalId: made[1].externalId,
        tokenVersion: 0,
        disabled: true,
        disabledUntil: null,
        disabledReason: null,
      });
      expect(await kit.users.findAuthState('999999999999')).toBeNull();
      const states = await kit.users.findAuthStates([made[0].id, made[2].id, '999999999999']);
      expect([...states.keys()].sort()).toEqual([made[0].id, made[2].id].sort());
      expect(states.get(made[2].id)).toMatchObject({ tokenVersion: 1, disabled: false });

      expect(await kit.users.count()).toBeGreaterThanOrEqual(3);
    });
  });

  describe('GroupDirectory', () => {
    it('finds groups and memberships, counts and pages current members', async () => {
      const directory = kit.t.app.get(GroupDirectory);
      const [owner, m1, m2, m3] = await newUsers(kit, 4);
      const publicId = randomGroupId();
      const { groupId } = await seed.group(publicId, owner.internalId, [m1.internalId, m2.internalId, m3.internalId]);
      const other = await seed.group(randomGroupId(), m1.internalId);
      await seed.leaveGroup(groupId, (await kit.store.findByGroupId(groupId))!.id, m2.internalId, 'left');

      expect(await directory.findByPublicId(publicId)).toMatchObject({
        id: groupId,
        publicId,
        ownerId: owner.internalId,
        disabled: false,
        dismissedAt: null,
      });
      expect(await directory.findByPublicId(randomGroupId())).toBeNull();
      expect((await directory.findByIds([groupId, other.groupId, groupId])).map((g) => g.id).sort()).toEqual(
        [groupId, other.groupId].sort(),
      );
      expect(await directory.findMembership(groupId, owner.internalId)).toMatchObject({
        role: 'owner',
        status: 'active',
      });
      expect(await directory.findMembership(groupId, m2.internalId)).toMatchObject({ role: 'member', status: 'left' });
      expect(await directory.findMembership(other.groupId, owner.internalId)).toBeNull();

      expect(await directory.countActiveMembers(groupId)).toBe(3);
      expect(await directory.countActiveMembersByGroup([groupId, other.groupId, '999999999999'])).toEqual(
        new Map([
          [groupId, 3],
          [other.groupId, 1],
        ]),
      );
      const active = sortIds([owner.internalId, m1.internalId, m3.internalId]);
      expect((await directory.listActiveMembers(groupId, null, 10)).map((m) => m.userId)).toEqual(active);
      expect((await directory.listActiveMembers(groupId, active[0], 1)).map((m) => m.userId)).toEqual([active[1]]);
      expect(await directory.countActiveGroupsOfUser(m1.internalId)).toBe(2);
      expect(await directory.countActiveGroupsOfUser(m2.internalId)).toBe(0);

      await kit.tx.run((m) => directory.setDisabled(m, groupId, true, kit.t.clock.now()));
      expect((await directory.findByPublicId(publicId))?.disabled).toBe(true);
    });
  });

  describe('Relationships', () => {
    it('between, hasBlocked and friendIds', async () => {
      const relationships = kit.t.app.get(Relationships);
      const friends = kit.t.app.get(FriendsRepository);
      const [a, b, c, d, loner] = (await newUsers(kit, 5)).map((u) => u.internalId);
      await seed.friends(a, b);
      await seed.friends(d, a);
      await kit.tx.run((m) => friends.insertBlock(m, a, c, kit.t.clock.now()));

      expect(await relationships.between(a, b)).toEqual({ friends: true, blocked: false });
      expect(await relationships.between(b, a)).toEqual({ friends: true, blocked: false });
      expect(await relationships.between(a, c)).toEqual({ friends: false, blocked: true });
      expect(await relationships.between(c, a)).toEqual({ friends: false, blocked: true });
      expect(await relationships.between(b, c)).toEqual({ friends: false, blocked: false });
      expect(await relationships.hasBlocked(a, c)).toBe(true);
      expect(await relationships.hasBlocked(c, a)).toBe(false);
      expect(await relationships.hasBlocked(a, b)).toBe(false);

      expect(sortIds(await relationships.friendIds(a))).toEqual(sortIds([b, d]));
      expect(await relationships.friendIds(b)).toEqual([a]);
      expect(await relationships.friendIds(c)).toEqual([]);
      expect(await relationships.friendIds(loner)).toEqual([]);
      expect(sortIds(await kit.tx.run((m) => relationships.friendIds(a, m)))).toEqual(sortIds([b, d]));

      // Friends who block: both facts are reported.
      await kit.tx.run((m) => friends.insertBlock(m, b, a, kit.t.clock.now()));
      expect(await relationships.between(a, b)).toEqual({ friends: true, blocked: true });
    });
  });
});
