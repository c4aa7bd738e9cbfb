// The Web SDK as an application installs it (issue 22): `npm pack` of sdk/web, the tarball
// installed into a scratch project, then used from Node as an ES module (`import`) and as
// CommonJS (`require`) against the running service, each in its own process: two users log in,
// one sends, the other receives `message.new`. Also what the tarball holds, and that its
// declarations type-check for ESM and CommonJS consumers (TypeScript's node16 resolution).
import { join } from 'node:path';
import { ApiClient, friendCid } from '../helpers/api-client';
import { listen } from '../helpers/realtime';
import { TestApp, issueUser, startTestApp } from '../helpers/test-app';
import { NodeScenarioInput, ScenarioResult, nodeConsumer } from './consumer-scenario';
import { InstalledSdk, PACKAGE_NAME, installPackedSdk, run, tokenReply } from './package-kit';

const ROOT = join(__dirname, '..', '..');

describe('Web SDK package: npm pack, install, use from Node (ESM and CommonJS)', () => {
  let sdk: InstalledSdk;
  let t: TestApp;
  let base: string;
  let api: ApiClient;

  beforeAll(async () => {
    sdk = await installPackedSdk();
    t = await startTestApp();
    base = await listen(t);
    api = new ApiClient(t);
  }, 600_000);
  afterAll(async () => {
    await t?.close();
    sdk?.remove();
  });

  it('packs the three builds, their declarations and the manifest, and no sources or specs', () => {
    const files = sdk.packedFiles;
    for (const path of [
      'package.json',
      'README.md',
      'dist/sdk/web/src/index.js',
      'dist/sdk/web/src/index.d.ts',
      'dist/src/contract/index.d.ts',
      'dist/cjs/package.json',
      'dist/cjs/sdk/web/src/index.js',
      'dist/cjs/sdk/web/src/index.d.ts',
      'dist/cjs/src/contract/index.d.ts',
      'dist/im-sdk.min.js',
    ])
      expect(files).toContain(path);
    expect(files.filter((f) => /\.spec\.|(?<!\.d)\.ts$/.test(f))).toEqual([]);
    const m = sdk.manifest;
    expect(m.exports['.']).toEqual({
      import: { types: './dist/sdk/web/src/index.d.ts', default: './dist/sdk/web/src/index.js' },
      require: { types: './dist/cjs/sdk/web/src/index.d.ts', default: './dist/cjs/sdk/web/src/index.js' },
    });
    expect([m.main, m.module, m.unpkg, m.jsdelivr].map((p) => files.includes(p.replace(/^\.\//, '')))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(Object.keys(m.dependencies)).toEqual(['socket.io-client']);
  });

  async function scenario(file: string): Promise<{ result: ScenarioResult; input: NodeScenarioInput; a: string }> {
    const [a, b] = [await issueUser(t), await issueUser(t)];
    await api.befriend(a, b);
    const input: NodeScenarioInput = {
      base,
      sender: await tokenReply(t, a.userId),
      receiver: await tokenReply(t, b.userId),
      conversationId: friendCid(b),
      text: `from ${file} ${a.userId}`,
    };
    const { stdout } = await run(process.execPath, [file], {
      cwd: sdk.dir,
      env: { IM_SCENARIO: JSON.stringify(input) },
      timeoutMs: 120_000,
    });
    return { result: JSON.parse(stdout.trim().split('\n').pop() ?? '') as ScenarioResult, input, a: a.userId };
  }

  function expectDelivered({ result, input, a }: Awaited<ReturnType<typeof scenario>>): void {
    expect(result.sent.conversation_id).toBe(input.conversationId);
    expect(result.typed).toEqual({
      type: 'message.new',
      // The receiver's own name of the conversation: its peer's.
      conversation_id: friendCid({ userId: a }),
      text: input.text,
      sender_id: a,
      mid: result.sent.mid,
    });
    expect(result.catchAll).toEqual({ type: 'message.new', mid: result.sent.mid });
    expect(result.refused).toMatchObject({ isImError: true, code: expect.any(Number), kind: expect.any(String) });
  }

  it(`imports ${PACKAGE_NAME} as an ES module: login, send, and message.new on the other client`, async () => {
    const file = sdk.write(
      'consumer.mjs',
      nodeConsumer(
        [
          `import { createClient, ImError } from '${PACKAGE_NAME}';`,
          // The ES module build, not the CommonJS one through Node's interop.
          `if (!import.meta.resolve('${PACKAGE_NAME}').endsWith('/dist/sdk/web/src/index.js')) throw new Error('not the ES module build');`,
        ].join('\n'),
      ),
    );
    expectDelivered(await scenario(file));
  });

  it(`requires ${PACKAGE_NAME} as CommonJS: login, send, and message.new on the other client`, async () => {
    const file = sdk.write(
      'consumer.cjs',
      nodeConsumer(
        [
          `const { createClient, ImError } = require('${PACKAGE_NAME}');`,
          `if (!require.resolve('${PACKAGE_NAME}').endsWith('/dist/cjs/sdk/web/src/index.js')) throw new Error('not the CommonJS build');`,
        ].join('\n'),
      ),
    );
    expectDelivered(await scenario(file));
  });

  it('type-checks an ES module and a CommonJS consumer against the declarations (strict, node16, no skipLibCheck)', async () => {
    const source = [
      `import { createClient, ImError, type ImClient, type Contract } from '${PACKAGE_NAME}';`,
      `const client: ImClient = createClient({ baseUrl: 'https://im.example.com', authProvider: async () => ({}) });`,
      `client.on('message.new', (event) => { const text: unknown = event.data.message.content?.text; void text; });`,
      `export const refused = (error: unknown): boolean => error instanceof ImError && error.kind === 'auth';`,
      `export type Sent = Contract.SendReply;`,
      `export { client };`,
    ].join('\n');
    const files = [sdk.write('check-esm.mts', source), sdk.write('check-cjs.cts', source)];
    // @types/node provides fetch, Blob, FormData and AbortSignal, as in any Node 20 project.
    await run(
      process.execPath,
      [
        require.resolve('typescript/bin/tsc'),
        '--noEmit',
        '--strict',
        '--module',
        'node16',
        '--moduleResolution',
        'node16',
        '--target',
        'es2022',
        '--typeRoots',
        join(ROOT, 'node_modules', '@types'),
        '--types',
        'node',
        ...files,
      ],
      { cwd: sdk.dir, timeoutMs: 180_000 },
    );
  });
});
