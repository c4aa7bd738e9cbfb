// The console's Webhooks page in headless Chromium (issue 23): an owner adds an endpoint that
// points at a receiver this test runs and sees its secret once; a message's delivery reaches the
// receiver signed with that secret (checked with the independent `standardwebhooks` package) and
// shows in the page; a receiver answering 500 leads to retries and dead letters, replayed from
// the page one by one and all at once; pause and resume; a secret rotation (both secrets sign);
// a moderator sees everything but no change control; axe-core finds no violation; no sideways
// scrolling at 390 px; and, on an app of its own, an endpoint whose breaker opened.
import { existsSync } from 'node:fs';
import { Server, createServer } from 'node:http';
import { join } from 'node:path';
import { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { WEBHOOK_EVENT_TYPES } from '../../src/contract/webhooks';
import type { WebhookDeliveryReply, WebhookEndpointReply } from '../../src/contract/webhooks';
import { ApiClient, friendCid } from '../helpers/api-client';
import { ADMIN_PASSWORD, adminSession, createAdmin } from '../helpers/admin-client';
import { IsolatedDatabase, isolatedDatabase } from '../helpers/isolated-database';
import { IssuedUser, TestApp, startTestApp } from '../helpers/test-app';
import { SHOTS, freePort, launchChromium } from './browser-harness';
import { CHROMIUM } from './ensure-chromium';
import { answerConfirm } from './console-pages';

/** Polls from the test side (the page's policy forbids the eval that waitForFunction needs). */
async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Received {
  headers: Record<string, string>;
  body: string;
  event: { event_id: string; type: string; position: string; data: unknown };
  answered: number;
}

/** A webhook receiver on a free port: records every request and answers `status`. */
class Receiver {
  status = 200;
  readonly received: Received[] = [];
  url = '';
  private server: Server | null = null;

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers: Record<string, string> = {};
        for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'])
          headers[name] = String(request.headers[name] ?? '');
        const answered = this.status;
        this.received.push({ headers, body, event: JSON.parse(body) as Received['event'], answered });
        response.statusCode = answered;
        response.end(answered === 200 ? 'ok' : 'failing on purpose');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}/hooks/im`;
  }

  /** The requests that carried `eventId`, every attempt. */
  attemptsOf(eventId: string): Received[] {
    return this.received.filter((r) => r.event.event_id === eventId);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** Throws unless `secret` signed the request (the receiver's check, by an independent implementation). */
function verify(secret: string, r: Received): void {
  new Webhook(secret).verify(r.body, r.headers);
}

async function signIn(tab: Page, username: string): Promise<void> {
  await tab.goto('/admin');
  await tab.getByLabel('Username').fill(username);
  await tab.getByLabel('Password').fill(ADMIN_PASSWORD);
  await tab.getByRole('button', { name: 'Sign in' }).click();
  await tab.getByRole('navigation', { name: 'Console sections' }).waitFor();
}

(existsSync(CHROMIUM) ? describe : describe.skip)('admin console: webhooks in Chromium', () => {
  let database: IsolatedDatabase;
  let t: TestApp;
  let api: ApiClient;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let owner: string;
  const receiver = new Receiver();
  /** The endpoint the tests share, and the secrets the page showed for it. */
  let endpointId = '';
  const secrets: string[] = [];
  let alice: IssuedUser;
  let bob: IssuedUser;
  const problems: string[] = [];

  beforeAll(async () => {
    database = await isolatedDatabase();
    await receiver.start();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // Short windows so that a failing receiver's events become dead letters within the test.
    t = await startTestApp({
      ...database.env,
      PUBLIC_BASE_URL: base,
      WEBHOOK_RETRY_HOURS: '0.002',
      WEBHOOK_BACKOFF_BASE_MS: '100',
      WEBHOOK_BACKOFF_MAX_MS: '500',
      WEBHOOK_POLL_MS: '100',
      WEBHOOK_TIMEOUT_MS: '3000',
      WEBHOOK_BREAKER_THRESHOLD: '1000',
    });
    await t.app.listen(port, '127.0.0.1');
    api = new ApiClient(t);
    [alice, bob] = [await api.user(), await api.user()];
    await api.befriend(alice, bob);
    owner = await createAdmin(t, 'owner');
    browser = await launchChromium();
    context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 401/.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    // Confirmations are asked in the page (dom.js confirmAction), never by the browser.
    page.on('dialog', (dialog) => {
      problems.push(`a browser dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    await signIn(page, owner);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver.stop();
    await database?.drop();
  });

  async function cookie(): Promise<string> {
    const session = (await context.cookies(`${base}/app/admin/`)).find((c) => c.name === 'ADMIN_SID');
    if (!session) throw new Error('no console session in the browser');
    return `ADMIN_SID=${session.value}`;
  }

  async function endpoints(): Promise<WebhookEndpointReply[]> {
    const { body } = await t.http.get('/app/admin/webhooks').set('Cookie', await cookie());
    return (body.data as { endpoints: WebhookEndpointReply[] }).endpoints;
  }

  async function deliveries(status?: string): Promise<WebhookDeliveryReply[]> {
    const { body } = await t.http
      .get('/app/admin/webhooks/deliveries')
      .set('Cookie', await cookie())
      .query({ endpoint_id: endpointId, ...(status ? { status } : {}) });
    return (body.data as { items: WebhookDeliveryReply[] }).items;
  }

  /** Sends a text from alice to bob; the message.new event's ID, as the receiver will see it. */
  async function send(text: string): Promise<string> {
    const { body } = await api.raw.sendText(alice, friendCid(bob), text);
    expect(body.code).toBe(0);
    return (body.data as { event_id: string }).event_id;
  }

  async function openEndpoint(tab: Page, url: string): Promise<void> {
    if (tab.url().endsWith('#/webhooks')) await tab.reload();
    else await tab.goto('/admin#/webhooks');
    await tab.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await tab.getByRole('button', { name: `Open endpoint ${url}` }).click();
    await tab.getByRole('heading', { level: 2, name: new RegExp(`^Endpoint .*${escapeRegExp(url)}`) }).waitFor();
  }
  const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

  const detail = () => page.getByRole('region', { name: 'Endpoint detail' });

  it('adds an endpoint with chosen event types and shows its secret once', async () => {
    await page.goto('/admin#/webhooks');
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByRole('cell', { name: 'Nothing to show.' }).waitFor();
    const form = page.getByRole('form', { name: 'New endpoint' });
    // One checkbox per type an endpoint can ask for (the contract's list), plus "all".
    expect(await form.getByRole('group', { name: 'Event types', exact: true }).getByRole('checkbox').count()).toBe(
      WEBHOOK_EVENT_TYPES.length + 1,
    );
    expect(await form.getByLabel('message.new', { exact: true }).isDisabled()).toBe(true);
    await form.getByLabel('Endpoint URL').fill(receiver.url);
    await form.getByLabel('Description (optional)').fill('Host backend');
    await form.getByLabel(/All event types/).uncheck();
    await form.getByLabel('message.new', { exact: true }).check();
    await form.getByRole('button', { name: 'Add endpoint' }).click();

    const box = page.getByRole('region', { name: 'New signing secret' });
    await box.getByText('you will not see this secret again').waitFor();
    const secret = await box.getByLabel('Signing secret').inputValue();
    expect(secret).toMatch(/^whsec_/);
    secrets.push(secret);
    await page.screenshot({ path: join(SHOTS, 'webhooks-secret.png'), fullPage: true });
    const [endpoint] = await endpoints();
    endpointId = endpoint.id;
    expect(endpoint).toMatchObject({ url: receiver.url, description: 'Host backend', event_types: ['message.new'] });
    expect(await box.getByText(endpoint.secret_fingerprint).count()).toBe(1);
    const row = page.getByRole('region', { name: 'Endpoints' }).getByRole('row').filter({ hasText: receiver.url });
    await row.getByText('enabled', { exact: true }).waitFor();
    await row.getByText('message.new', { exact: true }).waitFor();

    await box.getByRole('button', { name: 'Done' }).click();
    expect(await box.getByLabel('Signing secret').count()).toBe(0);
    await page.reload();
    await page.getByRole('button', { name: `Open endpoint ${receiver.url}` }).waitFor();
    expect(await page.content()).not.toContain(secret);
    const listed = await t.http.get('/app/admin/webhooks').set('Cookie', await cookie());
    expect(JSON.stringify(listed.body)).not.toContain(secret.slice('whsec_'.length));
  });

  it('delivers a sent message, signed with the secret, and shows the delivery', async () => {
    const eventId = await send('hello, host');
    await until(() => receiver.attemptsOf(eventId).length > 0, 'the delivery at the receiver');
    const [got] = receiver.attemptsOf(eventId);
    verify(secrets[0], got);
    expect(got.headers['webhook-id']).toBe(eventId);
    expect(got.event).toMatchObject({ event_id: eventId, type: 'message.new' });

    await openEndpoint(page, receiver.url);
    const panel = detail().getByRole('tabpanel');
    const row = panel.getByRole('row').filter({ hasText: eventId });
    await until(async () => {
      if ((await row.getByText('delivered', { exact: true }).count()) > 0) return true;
      await panel.getByRole('button', { name: 'Show deliveries' }).click();
      return false;
    }, 'the delivered row');
    await row.getByRole('cell', { name: '200', exact: true }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'webhooks-delivered.png'), fullPage: true });

    // The tabs by keyboard: arrow keys move between them and show the chosen one.
    const recent = detail().getByRole('tab', { name: 'Recent deliveries' });
    await recent.focus();
    await page.keyboard.press('ArrowRight');
    const dead = detail().getByRole('tab', { name: 'Dead letters' });
    expect(await dead.getAttribute('aria-selected')).toBe('true');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Dead letters');
    await detail().getByRole('tabpanel').getByText('Nothing to show.').waitFor();
    await page.keyboard.press('Home');
    expect(await recent.getAttribute('aria-selected')).toBe('true');
  });

  it('retries a failing receiver, keeps dead letters, and replays them one by one and all shown', async () => {
    receiver.status = 500;
    const first = await send('fails once');
    const second = await send('fails twice');
    const third = await send('fails thrice');
    await until(() => receiver.attemptsOf(first).length >= 2, 'a retry of the failing delivery');
    await openEndpoint(page, receiver.url);
    const panel = detail().getByRole('tabpanel');
    await panel.getByLabel('Delivery status').selectOption('retrying');
    const retrying = panel.getByRole('row').filter({ hasText: first });
    await until(async () => {
      await panel.getByRole('button', { name: 'Show deliveries' }).click();
      return (await retrying.getByRole('cell', { name: '500', exact: true }).count()) > 0;
    }, 'the retrying row with HTTP 500');
    await page.screenshot({ path: join(SHOTS, 'webhooks-retrying.png'), fullPage: true });

    await until(async () => (await deliveries('dead')).length === 3, 'three dead letters', 90_000);
    receiver.status = 200;
    await openEndpoint(page, receiver.url);
    await detail().getByRole('tab', { name: 'Dead letters' }).click();
    const letters = detail().getByRole('tabpanel');
    await letters.getByRole('row').filter({ hasText: third }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'webhooks-dead-letters.png'), fullPage: true });
    await letters.getByRole('button', { name: `Replay event ${first}` }).click();
    await page.getByRole('status').filter({ hasText: 'queued for delivery again' }).waitFor();
    await until(() => receiver.attemptsOf(first).some((r) => r.answered === 200), 'the replayed delivery');
    verify(
      secrets[0],
      receiver.attemptsOf(first).find((r) => r.answered === 200)!,
    );

    await letters.getByRole('button', { name: 'Replay all shown' }).click();
    expect(await answerConfirm(page, true)).toContain(`Replay the 2 dead letters shown to ${receiver.url}`);
    for (const id of [second, third])
      await until(() => receiver.attemptsOf(id).some((r) => r.answered === 200), `the replay of ${id}`);
    await until(async () => (await deliveries('dead')).length === 0, 'no dead letter left');
  });

  it('pauses and resumes the endpoint: a paused one gets nothing until resumed', async () => {
    await openEndpoint(page, receiver.url);
    await detail().getByRole('button', { name: 'Pause endpoint' }).click();
    expect(await answerConfirm(page, true)).toMatch(/^Pause this endpoint\?\s+Pause /);
    await detail().getByRole('button', { name: 'Resume endpoint' }).waitFor();
    const row = page.getByRole('region', { name: 'Endpoints' }).getByRole('row').filter({ hasText: receiver.url });
    await row.getByText('paused', { exact: true }).waitFor();
    const before = receiver.received.length;
    const eventId = await send('while paused');
    // The lag shows the waiting event; nothing reaches the receiver meanwhile.
    await until(async () => (await endpoints())[0].lag_events > 0, 'the lag of the paused endpoint');
    await page.screenshot({ path: join(SHOTS, 'webhooks-paused.png'), fullPage: true });
    expect(receiver.received.length).toBe(before);

    await detail().getByRole('button', { name: 'Resume endpoint' }).click();
    await detail().getByRole('button', { name: 'Pause endpoint' }).waitFor();
    await row.getByText('enabled', { exact: true }).waitFor();
    await until(() => receiver.attemptsOf(eventId).length > 0, 'the delivery after resuming');
  });

  it('rotates the secret: the new one is shown once and both sign until the window ends', async () => {
    await openEndpoint(page, receiver.url);
    await detail().getByRole('button', { name: 'Rotate secret' }).click();
    expect(await answerConfirm(page, true)).toMatch(/^Rotate the signing secret\?\s+Rotate the signing secret of /);
    const box = page.getByRole('region', { name: 'New signing secret' });
    await box.getByText('you will not see this secret again').waitFor();
    await box.getByText(/previous secret keeps signing too until/).waitFor();
    const secret = await box.getByLabel('Signing secret').inputValue();
    expect(secret).not.toBe(secrets[0]);
    secrets.push(secret);
    await detail()
      .getByText(/previous secret .* also signs every delivery until/)
      .waitFor();
    await page.screenshot({ path: join(SHOTS, 'webhooks-rotated.png'), fullPage: true });
    const eventId = await send('after the rotation');
    await until(() => receiver.attemptsOf(eventId).some((r) => r.answered === 200), 'a delivery after the rotation');
    const got = receiver.attemptsOf(eventId).find((r) => r.answered === 200)!;
    verify(secrets[1], got);
    verify(secrets[0], got);
  });

  it('edits the endpoint: all event types', async () => {
    await openEndpoint(page, receiver.url);
    const edit = detail().getByRole('button', { name: 'Edit endpoint' });
    await edit.click();
    expect(await edit.getAttribute('aria-expanded')).toBe('true');
    const form = detail().getByRole('form', { name: 'Edit endpoint' });
    expect(await form.getByLabel('Endpoint URL').inputValue()).toBe(receiver.url);
    expect(await form.getByLabel('message.new', { exact: true }).isChecked()).toBe(true);
    await form.getByLabel(/All event types/).check();
    await form.getByLabel('Description (optional)').fill('Host backend, every event');
    await form.getByRole('button', { name: 'Save endpoint' }).click();
    await detail()
      .getByRole('heading', { name: /^Endpoint Host backend, every event/ })
      .waitFor();
    expect((await endpoints())[0]).toMatchObject({ event_types: null, description: 'Host backend, every event' });
  });

  it('shows a moderator the endpoints and deliveries but no control that changes them', async () => {
    const moderator = await createAdmin(t, 'moderator');
    const own = await browser.newContext({ baseURL: base });
    try {
      const tab = await own.newPage();
      await signIn(tab, moderator);
      await openEndpoint(tab, receiver.url);
      await tab.getByText('Changing webhook endpoints needs the owner role.').waitFor();
      const region = tab.getByRole('region', { name: 'Endpoint detail' });
      await region.getByRole('tab', { name: 'Dead letters' }).click();
      await region.getByRole('tabpanel').getByRole('table').waitFor();
      for (const name of [
        'Add endpoint',
        'Edit endpoint',
        'Pause endpoint',
        'Resume endpoint',
        'Rotate secret',
        'Delete endpoint',
        'Replay all shown',
      ])
        expect(await tab.getByRole('button', { name }).count()).toBe(0);
      expect(await tab.getByRole('button', { name: /^Replay/ }).count()).toBe(0);
      expect(await tab.getByRole('form', { name: 'New endpoint' }).count()).toBe(0);
      await tab.screenshot({ path: join(SHOTS, 'webhooks-moderator.png'), fullPage: true });
    } finally {
      await own.close();
    }
  });

  it('passes axe-core with no violations: the list, the form, a new secret, the detail and both tabs', async () => {
    // axe is injected as a script, which the console's own policy forbids: this context bypasses CSP.
    const axeContext = await browser.newContext({ baseURL: base, bypassCSP: true });
    try {
      const tab = await axeContext.newPage();
      await signIn(tab, owner);
      const found: string[] = [];
      const check = async (state: string) => {
        await tab.waitForLoadState('networkidle');
        await tab.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
        const violations = (await tab.evaluate('axe.run(document).then((result) => result.violations)')) as Array<{
          id: string;
          impact: string;
          nodes: Array<{ target: unknown }>;
        }>;
        found.push(
          ...violations.map((v) => `${state}: ${v.id} (${v.impact}) ${JSON.stringify(v.nodes.map((n) => n.target))}`),
        );
      };
      await tab.goto('/admin#/webhooks');
      await tab.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
      await check('list and form');
      // An endpoint nobody sends to (a type that never fires here), to show a new secret.
      const form = tab.getByRole('form', { name: 'New endpoint' });
      await form.getByLabel('Endpoint URL').fill('http://127.0.0.1:9/axe');
      await form.getByLabel(/All event types/).uncheck();
      await form.getByLabel('call.ended', { exact: true }).check();
      await form.getByRole('button', { name: 'Add endpoint' }).click();
      await tab.getByRole('region', { name: 'New signing secret' }).getByLabel('Signing secret').waitFor();
      await check('new secret');
      await openEndpoint(tab, receiver.url);
      await tab.getByRole('region', { name: 'Endpoint detail' }).getByRole('tabpanel').getByRole('table').waitFor();
      await check('detail, recent deliveries');
      const region = tab.getByRole('region', { name: 'Endpoint detail' });
      await region.getByRole('button', { name: 'Edit endpoint' }).click();
      await region.getByRole('tab', { name: 'Dead letters' }).click();
      await region.getByRole('tabpanel').getByRole('table').waitFor();
      await check('edit form, dead letters');
      expect(found).toEqual([]);
    } finally {
      await axeContext.close();
    }
  });

  it('at 390 px: an open endpoint with its deliveries and the form do not scroll the page sideways', async () => {
    const phone = await browser.newContext({
      baseURL: base,
      viewport: { width: 390, height: 844 },
      storageState: await context.storageState(),
    });
    try {
      const tab = await phone.newPage();
      await openEndpoint(tab, receiver.url);
      const region = tab.getByRole('region', { name: 'Endpoint detail' });
      await region.getByRole('tabpanel').getByRole('table').waitFor();
      await region.getByRole('button', { name: 'Edit endpoint' }).click();
      const [scroll, client] = (await tab.evaluate(
        '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
      )) as [number, number];
      await tab.screenshot({ path: join(SHOTS, 'webhooks-390.png'), fullPage: true });
      expect(scroll).toBeLessThanOrEqual(client);
    } finally {
      await phone.close();
    }
  });

  it('deletes the endpoint after asking, and produced no console errors or CSP violations', async () => {
    await openEndpoint(page, receiver.url);
    await detail().getByRole('button', { name: 'Delete endpoint' }).click();
    expect(await answerConfirm(page, true)).toMatch(/^Delete this endpoint\?\s+Delete /);
    await page.getByRole('status').filter({ hasText: 'done' }).waitFor();
    await until(async () => !(await endpoints()).some((e) => e.id === endpointId), 'the endpoint gone');
    expect(await page.getByRole('button', { name: `Open endpoint ${receiver.url}` }).count()).toBe(0);
    expect(await detail().getByRole('heading').count()).toBe(0);
    expect(problems).toEqual([]);
  });
});

(existsSync(CHROMIUM) ? describe : describe.skip)('admin console: a webhook endpoint whose breaker opened', () => {
  let database: IsolatedDatabase;
  let t: TestApp;
  let browser: Browser;
  let base: string;
  const receiver = new Receiver();

  beforeAll(async () => {
    database = await isolatedDatabase();
    receiver.status = 500;
    await receiver.start();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // Two failures open the breaker, for longer than the test runs.
    t = await startTestApp({
      ...database.env,
      PUBLIC_BASE_URL: base,
      WEBHOOK_BREAKER_THRESHOLD: '2',
      WEBHOOK_BREAKER_COOLDOWN_MS: '600000',
      WEBHOOK_BACKOFF_BASE_MS: '50',
      WEBHOOK_BACKOFF_MAX_MS: '100',
      WEBHOOK_POLL_MS: '100',
    });
    await t.app.listen(port, '127.0.0.1');
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver.stop();
    await database?.drop();
  });

  it('shows "breaker open" in the list and says why in the detail', async () => {
    const owner = await adminSession(t, 'owner');
    expect((await owner.post('/app/admin/webhooks/create', { url: receiver.url })).body.code).toBe(0);
    const api = new ApiClient(t);
    const [a, b] = [await api.user(), await api.user()];
    await api.befriend(a, b);
    await until(async () => {
      const { body } = await owner.get('/app/admin/webhooks');
      return (body.data as { endpoints: WebhookEndpointReply[] }).endpoints[0].breaker === 'open';
    }, 'the breaker to open');
    const context = await browser.newContext({ baseURL: base });
    try {
      const tab = await context.newPage();
      await signIn(tab, owner.username);
      await tab.goto('/admin#/webhooks');
      const row = tab.getByRole('region', { name: 'Endpoints' }).getByRole('row').filter({ hasText: receiver.url });
      await row.getByText('breaker open', { exact: true }).waitFor();
      await row.getByRole('button', { name: `Open endpoint ${receiver.url}` }).click();
      const detail = tab.getByRole('region', { name: 'Endpoint detail' });
      await detail.getByText(/kept failing, so deliveries to it are held back/).waitFor();
      await detail.getByRole('table').getByText('retrying', { exact: true }).waitFor();
      await tab.screenshot({ path: join(SHOTS, 'webhooks-breaker-open.png'), fullPage: true });
    } finally {
      await context.close();
    }
  });
});
