import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { readdirSync, statSync } from 'node:fs';

export interface DemoFile {
  body: Buffer;
  contentType: string;
}

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

/** The SDK's entry in its build, which mirrors sdk/web/src and the src/contract it is compiled with. */
const SDK_ENTRY = 'sdk/web/src/index.js';

/** The import map the page declares inline; the policy allows exactly this script by its hash. */
export const IMPORT_MAP = JSON.stringify({
  imports: { 'socket.io-client': '/demo/vendor/socket.io-client.js', '@im-sdk/web': `/demo/sdk/${SDK_ENTRY}` },
});
export const IMPORT_MAP_HASH = `sha256-${createHash('sha256').update(IMPORT_MAP).digest('base64')}`;

/**
 * The demo chat's files: its own page and script, the Web SDK's ES module build (sdk/web/dist,
 * from `npm run sdk:build`) and socket.io-client's browser build. Read on each request, since
 * the demo is a development tool and the SDK may be rebuilt while the service runs; only names
 * in these folders can be served.
 */
@Injectable()
export class DemoFiles {
  private readonly own = join(__dirname, 'assets');
  private readonly sdk = join(process.cwd(), 'sdk', 'web', 'dist');

  page(): DemoFile | undefined {
    const file = this.read(this.own, 'index.html');
    if (!file) return undefined;
    const html = file.body.toString('utf8').replace('__IMPORT_MAP__', IMPORT_MAP);
    return { body: Buffer.from(html), contentType: file.contentType };
  }

  asset(path: string): DemoFile | undefined {
    return this.read(this.own, path);
  }

  sdkModule(path: string): DemoFile | undefined {
    return this.read(this.sdk, path);
  }

  get sdkBuilt(): boolean {
    return existsSync(join(this.sdk, SDK_ENTRY));
  }

  socketIoClient(): DemoFile {
    const file = join(dirname(require.resolve('socket.io-client/package.json')), 'dist', 'socket.io.esm.min.js');
    return { body: readFileSync(file), contentType: TYPES.js };
  }

  private read(root: string, path: string): DemoFile | undefined {
    const type = TYPES[path.split('.').pop() ?? ''];
    if (!type || !/^[a-z0-9-]+(\/[a-z0-9-]+)*\.(html|js|css)$/.test(path)) return undefined;
    const names = new Set(listFiles(root).map((f) => relative(root, f).split(sep).join('/')));
    if (!names.has(path)) return undefined;
    return { body: readFileSync(join(root, path)), contentType: type };
  }
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}
