import { Injectable } from '@nestjs/common';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import { REPORT_REASON_NAMES } from '../admin/report-reasons';
import { WEBHOOK_EVENT_TYPES } from '../contract/webhooks';

export interface ConsoleAsset {
  body: Buffer;
  contentType: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * The console's files, read once at start: a request can only name a file in this map, so no
 * path it sends ever reaches the file system. Chart.js comes from its npm package (a maintained
 * chart library, served as its own UMD build). js/report-reasons.js is written from the server's
 * list of reason names, so the page and the API share one definition; js/webhook-event-types.js
 * likewise from the contract's list of the event types an endpoint can ask for.
 */
@Injectable()
export class ConsoleAssets {
  private readonly files = new Map<string, ConsoleAsset>();

  constructor() {
    const root = join(__dirname, 'assets');
    for (const file of walk(root)) {
      const type = TYPES[extname(file)];
      if (type)
        this.files.set(relative(root, file).split(sep).join('/'), { body: readFileSync(file), contentType: type });
    }
    const chart = join(dirname(require.resolve('chart.js')), 'chart.umd.min.js');
    this.files.set('vendor/chart.umd.min.js', { body: readFileSync(chart), contentType: TYPES['.js'] });
    const reasons = Object.entries(REPORT_REASON_NAMES).map(([code, name]) => [Number(code), name]);
    this.files.set('js/report-reasons.js', {
      body: Buffer.from(
        `// Generated from src/admin/report-reasons.ts.\nexport const REPORT_REASONS = ${JSON.stringify(reasons)};\n`,
      ),
      contentType: TYPES['.js'],
    });
    this.files.set('js/webhook-event-types.js', {
      body: Buffer.from(
        `// Generated from src/contract/webhooks.ts.\nexport const WEBHOOK_EVENT_TYPES = ${JSON.stringify(WEBHOOK_EVENT_TYPES)};\n`,
      ),
      contentType: TYPES['.js'],
    });
  }

  get(path: string): ConsoleAsset | undefined {
    return this.files.get(path);
  }
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}
