// The Web SDK's aggregate unread badge (spec 4.7): absolute from sync, moved by real-time
// events, capped at 100, and recalibrated with `unread` once a capped badge goes down.
import { ImClient } from '../../sdk/web/src/index';
import { IssuedUser, TestApp, issueUser } from '../helpers/test-app';
import { ApiClient, friendCid, groupCid } from '../helpers/api-client';
import { hostProvider, sdkClient, until, useSdkApp } from './sdk-harness';

describe('Web SDK: the unread badge', () => {
  const app = useSdkApp();
  let t: TestApp;
  let base: string;
  let api: ApiClient;
  let clients: ImClient[];
  beforeAll(() => ({ t, base, api, clients } = app));

  async function loggedIn() {
    const [me, peer] = [await issueUser(t), await issueUser(t)];
    await api.befriend(me, peer);
    const sdk = sdkClient(base, hostProvider(t, () => me.userId).fn, clients);
    await sdk.c.login();
    await until(() => sdk.readies.length === 1, 'ready');
    await sdk.c.sync();
    return { me, peer, sdk };
  }

  const serverUnmuted = async (u: IssuedUser) => (await api.unread(u)).total_unmuted;

  it('counts one-to-one and group messages live, and a read on another device', async () => {
    const { me, peer, sdk } = await loggedIn();
    expect(sdk.c.badge).toEqual({ count: 0, capped: false });
    const groupId = await api.createGroup(peer, [me]);
    await sdk.c.sync();
    await api.send(peer, friendCid(me), 'one');
    await api.send(peer, groupCid(groupId), 'two');
    await until(() => sdk.c.badge.count === 2, 'two unread');
    await api.read(me, friendCid(peer), '1');
    await until(() => sdk.c.badge.count === 1, 'one read elsewhere');
    expect(sdk.c.badge.count).toBe(await serverUnmuted(me));
  });

  it('caps at 100, then asks the service for the absolute value when it goes down', async () => {
    const { me, peer, sdk } = await loggedIn();
    await api.sendMany(peer, friendCid(me), 105, 'flood');
    await until(() => sdk.c.badge.capped, 'the cap');
    expect(sdk.c.badge).toEqual({ count: 100, capped: true });
    await api.read(me, friendCid(peer), '50');
    await until(() => !sdk.c.badge.capped, 'the recalibration');
    expect(sdk.c.badge).toEqual({ count: 55, capped: false });
    expect(sdk.c.badge.count).toBe(await serverUnmuted(me));
  });

  it('leaves muted conversations out of the badge', async () => {
    const { me, peer, sdk } = await loggedIn();
    await api.send(peer, friendCid(me), 'one');
    await until(() => sdk.c.badge.count === 1, 'one unread');
    await api.setting(me, 'mute', friendCid(peer), true);
    await until(() => sdk.c.badge.count === 0, 'muted');
    expect(sdk.c.badge.count).toBe(await serverUnmuted(me));
  });
});
