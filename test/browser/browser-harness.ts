// What the browser specs share: a free port for the app (its PUBLIC_BASE_URL must be the page's
// origin, for the Origin checks), Debian's chromium with the flags this machine needs, and the
// screenshot folder.
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Browser, chromium } from 'playwright-core';
import { CHROMIUM } from './ensure-chromium';

export const SHOTS = join(__dirname, '..', '..', 'test-output', 'browser');

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  // Without these Chromium keeps calling Google's hosts, which this network refuses.
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export function launchChromium(): Promise<Browser> {
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}
