// Shared setup of the server-API and erasure review specs: one app, its socket URL and host-API helpers.
import { ApiClient } from '../helpers/api-client';
import { connect, listen, RtClient } from '../helpers/realtime';
import { TestApp, hostAuth, startTestApp } from '../helpers/test-app';

/** A request_id maker; the prefix only tells the specs' requests apart in logs. */
export const requestIds = (prefix: string) => (): string =>
  `${prefix}-${Math.random().toString(36).slice(2)}-${Date.now()}`;

export interface ReviewApp {
  t: TestApp;
  api: ApiClient;
  url: string;
}

/**
 * Boots one app for the enclosing describe (closing it and every socket after), hands it to `ready`
 * so the spec's own `t`/`api`/`url` variables are set, and answers the helpers the tests call.
 */
export function useReviewApp(ready: (app: ReviewApp) => void) {
  let t: TestApp;
  let url: string;
  const clients: RtClient[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    url = await listen(t);
    ready({ t, api: new ApiClient(t), url });
  });
  afterAll(async () => {
    for (const c of clients) c.close();
    await t.close();
  });

  const server = (path: string, body: unknown) =>
    t.http
      .post(`/app/server/${path}`)
      .set(...hostAuth())
      .send(body as object);

  const rt = async (token: string): Promise<RtClient> => {
    const c = await connect(url, { auth: { token } });
    clients.push(c);
    return c;
  };

  const groupMessages = async (groupId: string) =>
    (await server('messages/list', { group_id: groupId, count: 200 })).body.data as {
      messages: Array<{ mid: string; type: string; sender_id: string; content: unknown }>;
    };

  return { server, rt, groupMessages };
}
