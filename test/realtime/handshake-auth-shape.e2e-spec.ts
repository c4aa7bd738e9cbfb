// The handshake `auth` must be an object holding the IM token (`auth.token`). socket.io-client
// sends whatever it is given; an array, a string or another non-object used to close the
// connection with no word (socket.io's parser refused the CONNECT packet before any
// middleware ran). It is now refused like a missing token: connect_error {code: 1101, msg}.
import { io } from 'socket.io-client';
import { listen } from '../helpers/realtime';
import { TestApp, issueUser, startTestApp } from '../helpers/test-app';

type Outcome = { connectError: { code: number; msg: string } | null } | { closedWithout: string };

/** Connects once with `auth` as given and reports the refusal, or how the connection ended without one. */
function handshake(url: string, auth: unknown, transport: 'websocket' | 'polling'): Promise<Outcome> {
  const socket = io(url, {
    auth: auth as Record<string, unknown>,
    transports: [transport],
    reconnection: false,
    forceNew: true,
    timeout: 20_000,
  });
  return new Promise((resolve) => {
    socket.once('connect_error', (error: Error & { data?: { code: number; msg: string } }) => {
      socket.disconnect();
      resolve({ connectError: error.data ?? null });
    });
    socket.once('connect', () => {
      socket.disconnect();
      resolve({ closedWithout: 'connected' });
    });
    // A connection closed without connect_error: engine.io reports the close. The client closes
    // its transport just before it emits a connect_error, so the close only counts when no
    // connect_error follows in the same turn.
    socket.io.once('open', () =>
      socket.io.engine.once('close', (reason: string) => setTimeout(() => resolve({ closedWithout: reason }), 100)),
    );
  });
}

describe('real-time handshake: auth that is not an object', () => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await startTestApp();
    url = await listen(t);
  });
  afterAll(() => t.close());

  const refusedWith1101 = { connectError: { code: 1101, msg: expect.stringMatching(/^token missing: .*auth/) } };

  it.each(['websocket', 'polling'] as const)(
    'refuses an array or a string with 1101 naming auth (%s)',
    async (transport) => {
      const user = await issueUser(t);
      for (const auth of [[user.token], ['x', 'y'], [], user.token, 'token', ''])
        expect({ auth, outcome: await handshake(url, auth, transport) }).toEqual({ auth, outcome: refusedWith1101 });
    },
  );

  it('refuses other JSON values that are not objects with 1101 too', async () => {
    for (const auth of [true, false, 12.5])
      expect({ auth, outcome: await handshake(url, auth, 'websocket') }).toEqual({ auth, outcome: refusedWith1101 });
  });

  it('still connects with auth {token}', async () => {
    const user = await issueUser(t);
    expect(await handshake(url, { token: user.token }, 'websocket')).toEqual({ closedWithout: 'connected' });
  });
});
