// Black-box tests of what a JSON body or a query string cannot carry: a number JSON cannot
// represent (1e400), a cursor written as a list or an object, and a refused key whose name is
// not valid text (a lone surrogate) or holds characters that break or reorder a line (controls,
// format characters, line separators), which the 1004 msg must still name, escaped.
import { TestApp, bearer, friendConversationId, okData, startTestApp } from '../helpers/test-app';
import { ApiClient, IssuedUser } from '../helpers/api-client';
import { expectFail } from '../helpers/assertions';

describe('HTTP conventions: input JSON and query strings cannot carry', () => {
  let t: TestApp;
  let api: ApiClient;
  beforeAll(async () => {
    t = await startTestApp();
    api = new ApiClient(t);
  });
  afterAll(() => t.close());

  const postJson = (user: IssuedUser, path: string, json: string) =>
    t.http
      .post(path)
      .set(...bearer(user.token))
      .set('Content-Type', 'application/json')
      .send(json);

  it('refuses a number JSON cannot represent inside custom content with 1004 naming it, and stores nothing', async () => {
    const [a, b] = await api.users(2);
    await api.befriend(a, b);
    const conversation = friendConversationId(b);
    const key = `cmid-${Date.now()}-${Math.random().toString(16).slice(2)}`;
    for (const [number, path] of [
      ['1e400', 'content.data.n'],
      ['-1e400', 'content.data.n'],
      ['[1, 2e308]', 'content.data.n[1]'],
    ]) {
      const reply = await postJson(
        a,
        '/app/sdk/messages/send',
        `{"conversation_id":"${conversation}","client_message_id":"${key}","type":"custom","content":{"data":{"n":${number}}}}`,
      );
      expectFail(reply, 1004);
      expect(reply.body.msg).toBe(`${path}: must be a finite number`);
    }
    // Nothing was stored under the key: the same key now sends a new message with other content.
    const sent = okData<{ message: { content: unknown } }>(
      await api.raw.send(a, {
        conversation_id: conversation,
        client_message_id: key,
        type: 'custom',
        content: { data: { n: 1 } },
      }),
    );
    expect(sent.message.content).toEqual(expect.objectContaining({ data: { n: 1 } }));
  });

  it('names a refused key holding a lone surrogate with the surrogate escaped, as valid UTF-8 text', async () => {
    const [user] = await api.users(1);
    const before = await api.me(user);
    const reply = await postJson(user, '/app/sdk/users/me/update', '{"nickname":"Changed","bad\\ud800key":1}');
    expectFail(reply, 1004);
    expect(reply.body.msg).toBe('bad\\ud800key: contains invalid Unicode (a lone surrogate)');
    // The reply's bytes are UTF-8 text whose JSON holds no lone-surrogate escape.
    expect(reply.text).not.toMatch(/(?<!\\)\\u[dD][89a-fA-F][0-9a-fA-F]{2}/);
    expect(await api.me(user)).toEqual(before);
  });

  it('names a refused key holding format or separator characters with each escaped (\\u202e, \\u2028)', async () => {
    const [user] = await api.users(1);
    const query = await t.http
      .get('/app/sdk/friends?%E2%80%AE[]=1&x%E2%80%A8%E2%80%8B[a]=2')
      .set(...bearer(user.token));
    expectFail(query, 1004);
    expect(query.body.msg).toBe('\\u202e: must be a single value: [] and [key] forms are not supported');
    const before = await api.me(user);
    const body = await postJson(
      user,
      '/app/sdk/users/me/update',
      '{"nickname":"Changed","a\\u2028\\u202eb\\u0085":1e400}',
    );
    expectFail(body, 1004);
    expect(body.body.msg).toBe('a\\u2028\\u202eb\\u0085: must be a finite number');
    // Neither reply carries a character that would break its line or reorder what follows.
    for (const reply of [query, body]) expect(reply.text).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);
    expect(await api.me(user)).toEqual(before);
  });
});
