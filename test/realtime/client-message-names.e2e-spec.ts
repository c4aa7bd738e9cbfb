// Black-box tests of how a 1004 acknowledgement names a key the client sent: like HTTP's 1004 msg
// (printableName), a lone surrogate, a control, format or separator character in the refused key
// is written as a \uXXXX escape, so the msg is valid text that breaks no line, hides and reorders
// nothing, and still shows which key was refused. The connection stays open.
import { connect, listen, RtClient } from '../helpers/realtime';
import { friendConversationId, issueUser, startTestApp, TestApp } from '../helpers/test-app';

type Ack = { code: number; msg: string };

/** Anything a msg must not carry raw: lone surrogates, controls, format characters, line or paragraph separators. */
const UNPRINTABLE = /[\p{Cs}\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

describe('real-time client messages: a refused key is named escaped', () => {
  let t: TestApp;
  let url: string;
  const open: RtClient[] = [];
  beforeAll(async () => {
    t = await startTestApp();
    url = await listen(t);
  }, 60_000);
  afterEach(() => open.splice(0).forEach((c) => c.close()));
  afterAll(() => t.close());

  async function socket(): Promise<RtClient> {
    const user = await issueUser(t);
    const client = await connect(url, { auth: { token: user.token } });
    open.push(client);
    return client;
  }

  it.each([
    ['a lone surrogate and ESC', '\ud800\u001b', '\\ud800\\u001b'],
    ['a right-to-left override and a line separator', 'a\u202e\u2028b', 'a\\u202e\\u2028b'],
    ['a zero-width space, a byte order mark and U+0085', '\u200bx\ufeff\u0085', '\\u200bx\\ufeff\\u0085'],
  ])('conversation.typing with an unknown key holding %s acks 1004 naming it escaped', async (_label, key, named) => {
    const client = await socket();
    const other = await issueUser(t);
    const ack = await client.request<Ack>('conversation.typing', {
      conversation_id: friendConversationId(other),
      [key]: 1,
    });
    expect(ack).toEqual(expect.objectContaining({ code: 1004, msg: `${named}: unknown field` }));
    expect(ack.msg).not.toMatch(UNPRINTABLE);
    expect(client.socket.connected).toBe(true);
  });

  it('auth.renew with an unknown key holding a lone surrogate and ESC acks 1004 naming it escaped', async () => {
    const client = await socket();
    const ack = await client.request<Ack>('auth.renew', { token: 'x', '\udc00\u001b': true });
    expect(ack).toEqual(expect.objectContaining({ code: 1004, msg: '\\udc00\\u001b: unknown field' }));
    expect(ack.msg).not.toMatch(UNPRINTABLE);
    expect(client.socket.connected).toBe(true);
  });
});
