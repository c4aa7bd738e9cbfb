import type { ConnectionDevice } from './socket-device';
import { USER_CONNECTIONS_LISTED, answerOf, mergeConnections, readAnswer } from './user-connections';

const device = (connectedAt: number, deviceId: string | null = null): ConnectionDevice => ({
  platform: deviceId ? 'ios' : null,
  deviceId,
  appVersion: null,
  userAgent: null,
  address: '127.0.0.1',
  connectedAt,
});

describe('user connections census', () => {
  it('merges the answers newest first, with the instance of each', () => {
    const merged = mergeConnections([
      answerOf('a:1', [device(1, 'x'), device(3)]),
      readAnswer(JSON.parse(JSON.stringify(answerOf('b:2', [device(2, 'y')]))))!,
    ]);
    expect(merged.sockets).toBe(3);
    expect(merged.truncated).toBe(false);
    expect(merged.devices.map((d) => [d.connectedAt, d.instance])).toEqual([
      [3, 'a:1'],
      [2, 'b:2'],
      [1, 'a:1'],
    ]);
  });

  it('lists at most USER_CONNECTIONS_LISTED and says so, counting them all', () => {
    const many = Array.from({ length: USER_CONNECTIONS_LISTED + 5 }, (_, i) => device(i));
    const merged = mergeConnections([answerOf('a:1', many), answerOf('b:2', [device(1000)])]);
    expect(merged.sockets).toBe(USER_CONNECTIONS_LISTED + 6);
    expect(merged.devices).toHaveLength(USER_CONNECTIONS_LISTED);
    expect(merged.devices[0].connectedAt).toBe(1000);
    expect(merged.truncated).toBe(true);
  });

  it('takes no answer that is not one (an older instance counts instead)', () => {
    expect(readAnswer(3)).toBeNull();
    expect(readAnswer({ instance: 'a', total: 1, connections: [{ platform: 1 }] })).toBeNull();
    expect(readAnswer({ instance: 'a', total: -1, connections: [] })).toBeNull();
  });
});
