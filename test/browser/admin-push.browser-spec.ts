// The console's Push page in headless Chromium (issue 24), on an app whose FCM adapter points at
// the fake FCM: the status table shows FCM configured with its registrations and the others not
// configured; an owner sends a test notification and sees each device's outcome (sent, and a dead
// token with FCM's answer), a user without devices and an unknown user (the envelope's msg); a
// viewer sees the status but no test form; axe-core finds no violation; nothing scrolls sideways
// at 390 px; and no console error or CSP violation along the way.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { ADMIN_PASSWORD, adminSession, createAdmin } from '../helpers/admin-client';
import { IsolatedDatabase, isolatedDatabase } from '../helpers/isolated-database';
import { IssuedUser, TestApp, issueUser, startTestApp } from '../helpers/test-app';
import { FakeFcm } from '../push/fakes/fake-fcm';
import { FAST_PUSH, PushFiles, androidDevice, eventually, fcmEnv, register } from '../push/push-kit';
import { SHOTS, freePort, launchChromium } from './browser-harness';
import { CHROMIUM } from './ensure-chromium';

async function signIn(tab: Page, username: string): Promise<void> {
  await tab.goto('/admin');
  await tab.getByLabel('Username').fill(username);
  await tab.getByLabel('Password').fill(ADMIN_PASSWORD);
  await tab.getByRole('button', { name: 'Sign in' }).click();
  await tab.getByRole('navigation', { name: 'Console sections' }).waitFor();
}

/** Opens the Push page from the navigation, as an administrator would; drawn afresh when it is open already. */
async function openPush(tab: Page): Promise<void> {
  // The same hash again is no navigation: reload, so the page shows what changed since.
  if (tab.url().endsWith('#/push')) await tab.reload();
  else await tab.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Push' }).click();
  await tab.getByRole('heading', { level: 1, name: 'Push' }).waitFor();
  await providerRow(tab, 'FCM').waitFor();
}

const providers = (tab: Page): Locator => tab.getByRole('region', { name: 'Providers' });

function providerRow(tab: Page, name: string): Locator {
  return providers(tab)
    .getByRole('row')
    .filter({ has: tab.getByRole('cell', { name, exact: true }) });
}

/** The text of each cell of a row, by column heading. */
async function cells(row: Locator, headings: string[]): Promise<Record<string, string>> {
  const texts = await row.getByRole('cell').allInnerTexts();
  return Object.fromEntries(headings.map((heading, i) => [heading, texts[i].trim()]));
}

const PROVIDER_HEADINGS = [
  'Provider',
  'State',
  'Serves',
  'Registrations',
  'Pending',
  'In flight / concurrency',
  'Last success',
  'Last failure',
];
const RESULT_HEADINGS = ['Device ID', 'Provider', 'Outcome', 'HTTP status', 'Reason'];

(existsSync(CHROMIUM) ? describe : describe.skip)('admin console: push in Chromium', () => {
  let database: IsolatedDatabase;
  let fcm: FakeFcm;
  const files = new PushFiles();
  let t: TestApp;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let owner: string;
  let carol: IssuedUser;
  let carolToken: string;
  let carolDevice: string;
  const problems: string[] = [];

  beforeAll(async () => {
    fcm = await FakeFcm.start();
    database = await isolatedDatabase();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    t = await startTestApp({ ...database.env, ...FAST_PUSH, ...(await fcmEnv(fcm, files)), PUBLIC_BASE_URL: base });
    await t.app.listen(port, '127.0.0.1');
    carol = await issueUser(t);
    carolToken = FakeFcm.deviceToken();
    const device = androidDevice(carolToken);
    carolDevice = device.device_id;
    await register(t, carol, device);
    owner = await createAdmin(t, 'owner');
    browser = await launchChromium();
    context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 401/.test(message.text())) problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await signIn(page, owner);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await fcm?.close();
    await database?.drop();
    files.cleanup();
  });

  const form = () => page.getByRole('form', { name: 'Send test notification' });
  const result = () => page.getByRole('region', { name: 'Test result' });

  async function sendTest(userId: string, text?: string): Promise<void> {
    await form().getByLabel('User ID').fill(userId);
    await form()
      .getByLabel('Text (optional)')
      .fill(text ?? '');
    await form().getByRole('button', { name: 'Send test notification' }).click();
  }

  it('lists the providers: FCM configured with its registration, APNs and the others not configured', async () => {
    await openPush(page);
    const fcmRow = await cells(providerRow(page, 'FCM'), PROVIDER_HEADINGS);
    expect(fcmRow).toMatchObject({
      State: 'configured',
      Serves: 'fcm',
      Registrations: '1',
      Pending: '0',
      'Last success': '—',
      'Last failure': '—',
    });
    expect(fcmRow['In flight / concurrency']).toMatch(/^0 \/ [1-9]\d*$/);
    const apnsRow = await cells(providerRow(page, 'APNs'), PROVIDER_HEADINGS);
    expect(apnsRow).toMatchObject({ State: 'not configured', Serves: 'apns, apns_voip', Registrations: '0' });
    for (const name of ['Huawei Push Kit', 'Xiaomi Push'])
      expect((await cells(providerRow(page, name), PROVIDER_HEADINGS)).State).toBe('not configured');
    const facts = providers(page).locator('dl');
    await facts.getByText('Dispatcher lag').waitFor();
    expect(await facts.locator('dd').allInnerTexts()).toEqual(['up to date', 'full (sender and text)']);
    await page.screenshot({ path: join(SHOTS, 'push-status.png'), fullPage: true });
  });

  it('sends an owner’s test to a user’s device: "sent" in the page, the message at the fake FCM', async () => {
    await openPush(page);
    // The service takes at most 120 characters of text: the field stops there.
    expect(await form().getByLabel('Text (optional)').getAttribute('maxlength')).toBe('120');
    await sendTest(carol.userId, 'Hello from the console');
    const row = result().getByRole('row').filter({ hasText: carolDevice });
    await row.getByText('sent', { exact: true }).waitFor();
    expect(await cells(row, RESULT_HEADINGS)).toEqual({
      'Device ID': carolDevice,
      Provider: 'fcm',
      Outcome: 'sent',
      'HTTP status': '200',
      Reason: '—',
    });
    await page
      .getByRole('status')
      .filter({ hasText: `Test notification to ${carol.userId}: 1 of 1 device sent` })
      .waitFor();
    const received = fcm.received.filter((r) => r.token === carolToken);
    expect(received).toHaveLength(1);
    expect(fcm.shown(carolToken).map((s) => s.body)).toEqual(['Hello from the console']);
    expect(received[0].message).toMatchObject({ data: { type: 'test' } });
    // The page draws the status again after a send: FCM's last success is there now.
    await eventually(
      async () => (await cells(providerRow(page, 'FCM'), PROVIDER_HEADINGS))['Last success'] !== '—',
      'the last success in the status table',
    );
    expect((await cells(providerRow(page, 'FCM'), PROVIDER_HEADINGS))['Last success']).toMatch(/ UTC$/);
    await page.screenshot({ path: join(SHOTS, 'push-test-sent.png'), fullPage: true });

    const audit = await (await adminSession(t, 'owner')).get('/app/admin/audit', { action: 'push.test' });
    expect(audit.body.data.items).toEqual([
      expect.objectContaining({
        admin: owner,
        action: 'push.test',
        after: { devices: [{ provider: 'fcm', outcome: 'sent' }] },
      }),
    ]);
  });

  it('shows a dead token with FCM’s status and reason, and the registration is gone from the count', async () => {
    const dave = await issueUser(t);
    const token = FakeFcm.deviceToken();
    const device = androidDevice(token);
    await register(t, dave, device);
    fcm.markDead(token);
    await openPush(page);
    expect((await cells(providerRow(page, 'FCM'), PROVIDER_HEADINGS)).Registrations).toBe('2');
    await sendTest(dave.userId);
    const row = result().getByRole('row').filter({ hasText: device.device_id });
    await row.getByText(/^dead token/).waitFor();
    const shown = await cells(row, RESULT_HEADINGS);
    expect(shown).toMatchObject({ Provider: 'fcm', 'HTTP status': '404' });
    expect(shown.Reason).toMatch(/UNREGISTERED/);
    expect(shown.Reason).not.toContain(token);
    await page.getByRole('status').filter({ hasText: '0 of 1 device sent' }).waitFor();
    await eventually(
      async () => (await cells(providerRow(page, 'FCM'), PROVIDER_HEADINGS)).Registrations === '1',
      'the dead registration out of the count',
    );
    const failure = (await cells(providerRow(page, 'FCM'), PROVIDER_HEADINGS))['Last failure'];
    expect(failure).toMatch(/UTC\s+.*UNREGISTERED/s);
    await page.screenshot({ path: join(SHOTS, 'push-test-dead-token.png'), fullPage: true });
  });

  it('says so when the user has no registered device', async () => {
    const erin = await issueUser(t);
    const before = fcm.received.length;
    await openPush(page);
    await sendTest(erin.userId);
    await result().getByText(`${erin.userId} has no registered device: no notification was sent.`).waitFor();
    expect(await result().getByRole('table').count()).toBe(0);
    expect(fcm.received.length).toBe(before);
  });

  it('shows the service’s message for an unknown user', async () => {
    await openPush(page);
    await sendTest('nobody-here-42');
    await result().getByText('No test notification sent: user_id: no such user').waitFor();
    await page.getByRole('status').filter({ hasText: 'user_id: no such user' }).waitFor();
    expect(await result().getByRole('table').count()).toBe(0);
    // The form stays usable for the next try.
    expect(await form().getByRole('button', { name: 'Send test notification' }).isDisabled()).toBe(false);
    expect(await form().getByLabel('User ID').inputValue()).toBe('nobody-here-42');
  });

  it('shows a viewer the status but no test form (and the service refuses the send)', async () => {
    const viewer = await createAdmin(t, 'viewer');
    const own = await browser.newContext({ baseURL: base });
    try {
      const tab = await own.newPage();
      await signIn(tab, viewer);
      await openPush(tab);
      expect((await cells(providerRow(tab, 'FCM'), PROVIDER_HEADINGS)).State).toBe('configured');
      await tab.getByText('Sending a test notification needs the owner role.').waitFor();
      expect(await tab.getByRole('form', { name: 'Send test notification' }).count()).toBe(0);
      expect(await tab.getByRole('button', { name: 'Send test notification' }).count()).toBe(0);
      expect(await tab.getByLabel('User ID').count()).toBe(0);
      await tab.getByRole('button', { name: 'Refresh' }).click();
      await tab.getByRole('status').filter({ hasText: 'Push status refreshed.' }).waitFor();
      await tab.screenshot({ path: join(SHOTS, 'push-viewer.png'), fullPage: true });
    } finally {
      await own.close();
    }
    const session = await adminSession(t, 'viewer');
    const refused = await session.post('/app/admin/push/test', { user_id: carol.userId });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 1004, msg: 'role: this needs the owner role (yours: viewer)' });
  });

  it('passes axe-core with no violations: the status, the form and a result table', async () => {
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
      await openPush(tab);
      await check('status and form');
      const testForm = tab.getByRole('form', { name: 'Send test notification' });
      await testForm.getByLabel('User ID').fill(carol.userId);
      await testForm.getByRole('button', { name: 'Send test notification' }).click();
      await tab.getByRole('region', { name: 'Test result' }).getByRole('table').waitFor();
      await check('result');
      await testForm.getByLabel('User ID').fill('nobody-here-42');
      await testForm.getByRole('button', { name: 'Send test notification' }).click();
      await tab
        .getByRole('region', { name: 'Test result' })
        .getByText(/no such user/)
        .waitFor();
      await check('error');
      expect(found).toEqual([]);
    } finally {
      await axeContext.close();
    }
  });

  it('at 390 px: the status and a result table do not scroll the page sideways; no console errors', async () => {
    const phone = await browser.newContext({
      baseURL: base,
      viewport: { width: 390, height: 844 },
      storageState: await context.storageState(),
    });
    try {
      const tab = await phone.newPage();
      await tab.goto('/admin#/push');
      await providerRow(tab, 'FCM').waitFor();
      const testForm = tab.getByRole('form', { name: 'Send test notification' });
      await testForm.getByLabel('User ID').fill(carol.userId);
      await testForm.getByRole('button', { name: 'Send test notification' }).click();
      await tab.getByRole('region', { name: 'Test result' }).getByRole('table').waitFor();
      const [scroll, client] = (await tab.evaluate(
        '[document.documentElement.scrollWidth, document.documentElement.clientWidth]',
      )) as [number, number];
      await tab.screenshot({ path: join(SHOTS, 'push-390.png'), fullPage: true });
      expect(scroll).toBeLessThanOrEqual(client);
    } finally {
      await phone.close();
    }
    expect(problems).toEqual([]);
  });
});
