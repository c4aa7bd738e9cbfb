// The Web SDK package in Chromium (issue 22), installed from its `npm pack` tarball into a
// scratch project: (c) a page whose script esbuild bundled from the installed package, and (d) a
// page that loads the package's script-tag bundle (its `unpkg` file) and uses the `ImSdk` global.
// Both run the Node consumers' scenario against the running service: two users log in, one
// sends, the other receives `message.new`.
//
// The pages come from a host site of their own (another origin, as an application embedding the
// SDK is): its small backend answers `/token` by calling the service's host endpoint with the
// SDK secret, as a real host backend does, so the page never holds the secret and needs no CORS
// for it. The SDK's own requests and socket.io connection are cross-origin, allowed by the
// service's CORS_ORIGINS naming the host site: the same configuration a deployment uses.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import { Browser, Page } from 'playwright-core';
import { ApiClient, friendCid } from '../helpers/api-client';
import { IsolatedDatabase, isolatedDatabase } from '../helpers/isolated-database';
import { listen } from '../helpers/realtime';
import { TestApp, issueUser, startTestApp } from '../helpers/test-app';
import { launchChromium } from '../browser/browser-harness';
import { CHROMIUM } from '../browser/ensure-chromium';
import { SCENARIO_SOURCE, ScenarioResult } from './consumer-scenario';
import { InstalledSdk, PACKAGE_NAME, installPackedSdk, tokenReply } from './package-kit';

interface HostFile {
  type: string;
  body: string | Buffer;
}

/** The host site: static files, and `/token?user_id=` answered by the service's host endpoint. */
async function startHostSite(files: Map<string, HostFile>, token: (userId: string) => Promise<unknown>) {
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://host.test');
    if (url.pathname === '/token') {
      const body = JSON.stringify(await token(url.searchParams.get('user_id') ?? ''));
      response.writeHead(200, { 'content-type': 'application/json' }).end(body);
      return;
    }
    const file = files.get(url.pathname);
    if (!file) response.writeHead(404).end();
    else response.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store' }).end(file.body);
  };
  const server: Server = createServer((request, response) => {
    handle(request, response).catch(() => response.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const html = (scripts: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>IM SDK package</title></head><body>${scripts}</body></html>`;
const JS = 'text/javascript; charset=utf-8';

(existsSync(CHROMIUM) ? describe : describe.skip)('Web SDK package in Chromium: esbuild page and script tag', () => {
  let sdk: InstalledSdk;
  let database: IsolatedDatabase;
  let t: TestApp;
  let base: string;
  let api: ApiClient;
  let host: Awaited<ReturnType<typeof startHostSite>>;
  let browser: Browser;
  let bundledInputs: string[];
  const files = new Map<string, HostFile>();
  const problems: string[] = [];

  beforeAll(async () => {
    sdk = await installPackedSdk();

    // (c) An application's entry, bundled by esbuild out of the installed package.
    const entry = sdk.write(
      'page-entry.mjs',
      `import { createClient, ImError } from '${PACKAGE_NAME}';\n${SCENARIO_SOURCE}\nwindow.runScenario = runScenario;\n`,
    );
    mkdirSync(join(sdk.dir, 'site'), { recursive: true });
    const bundled = await build({
      absWorkingDir: sdk.dir,
      entryPoints: [entry],
      outfile: join(sdk.dir, 'site', 'bundled.js'),
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: ['es2020'],
      metafile: true,
      logLevel: 'warning',
    });
    bundledInputs = Object.keys(bundled.metafile.inputs);
    files.set('/bundled.html', { type: 'text/html', body: html('<script type="module" src="/bundled.js"></script>') });
    files.set('/bundled.js', { type: JS, body: readFileSync(join(sdk.dir, 'site', 'bundled.js')) });

    // (d) The package's script-tag bundle, as a CDN serves it (its `unpkg` file), and a classic script.
    files.set('/vendor/im-sdk.min.js', { type: JS, body: readFileSync(join(sdk.packageDir, sdk.manifest.unpkg)) });
    files.set('/script-tag.js', {
      type: JS,
      body: `const { createClient, ImError } = window.ImSdk;\n${SCENARIO_SOURCE}\nwindow.runScenario = runScenario;\n`,
    });
    files.set('/script-tag.html', {
      type: 'text/html',
      body: html('<script src="/vendor/im-sdk.min.js"></script><script src="/script-tag.js"></script>'),
    });

    database = await isolatedDatabase();
    // The host site's origin must be known to the service (CORS_ORIGINS) before it starts.
    let app: TestApp | undefined;
    host = await startHostSite(files, (userId) => tokenReply(app as TestApp, userId));
    t = app = await startTestApp({ ...database.env, CORS_ORIGINS: host.origin });
    base = await listen(t);
    api = new ApiClient(t);
    browser = await launchChromium();
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await t?.close();
    await database?.drop();
    sdk?.remove();
  });
  afterEach(() => expect(problems.splice(0)).toEqual([]));

  async function open(path: string): Promise<Page> {
    const context = await browser.newContext({ baseURL: host.origin });
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(path);
    await page.waitForFunction(
      () => typeof (globalThis as unknown as { runScenario?: unknown }).runScenario === 'function',
    );
    return page;
  }

  /** Two befriended users; the page logs both in through the host site's /token and sends from the first. */
  async function scenarioIn(page: Page, text: string): Promise<{ result: ScenarioResult; sender: string }> {
    const [a, b] = [await issueUser(t), await issueUser(t)];
    await api.befriend(a, b);
    const input = { base, sender: a.userId, receiver: b.userId, conversationId: friendCid(b), text };
    const result = await page.evaluate(async (input) => {
      const auth = (userId: string) => async () =>
        (await fetch(`/token?user_id=${encodeURIComponent(userId)}`)).json() as Promise<unknown>;
      const run = (globalThis as unknown as { runScenario(input: unknown): Promise<ScenarioResult> }).runScenario;
      return run({ ...input, senderAuth: auth(input.sender), receiverAuth: auth(input.receiver) });
    }, input);
    return { result, sender: a.userId };
  }

  function expectDelivered({ result, sender }: { result: ScenarioResult; sender: string }, text: string): void {
    expect(result.typed).toEqual({
      type: 'message.new',
      conversation_id: friendCid({ userId: sender }),
      text,
      sender_id: sender,
      mid: result.sent.mid,
    });
    expect(result.catchAll).toEqual({ type: 'message.new', mid: result.sent.mid });
    expect(result.refused).toMatchObject({ isImError: true, code: expect.any(Number), kind: expect.any(String) });
  }

  it('(c) a page bundled with esbuild from the installed package: login, send, message.new, across origins', async () => {
    // esbuild took the package's ES module build (its `import` condition), never the CommonJS one.
    expect(bundledInputs).toContain('node_modules/@im-sdk/web/dist/sdk/web/src/index.js');
    expect(bundledInputs.filter((path) => path.includes('/dist/cjs/'))).toEqual([]);
    const page = await open('/bundled.html');
    const text = 'from a bundled page';
    expectDelivered(await scenarioIn(page, text), text);
    await page.context().close();
  });

  it('(d) the script-tag bundle: the ImSdk global alone, login, send, message.new, across origins', async () => {
    const page = await open('/script-tag.html');
    const globals = await page.evaluate(() => ({
      createClient: typeof (globalThis as unknown as { ImSdk: { createClient: unknown } }).ImSdk.createClient,
      // socket.io-client is inside the bundle: it defines no global of its own.
      io: typeof (globalThis as unknown as { io?: unknown }).io,
    }));
    expect(globals).toEqual({ createClient: 'function', io: 'undefined' });
    const text = 'from a script tag';
    expectDelivered(await scenarioIn(page, text), text);
    await page.context().close();
  });
});
