import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AdminAccountsService } from '../admin/admin-accounts.service';
import { ADMIN_ROLES, AdminRole } from '../admin/admin-roles';
import { AppModule } from '../app.module';
import { AppError } from '../common/app-error';
import { createRootLogger } from '../common/logging/root-logger';
import { ConfigError, loadConfig } from '../config/app-config';
import { applyDevSecrets } from '../config/dev-secrets';

export const USAGE = [
  'usage: npm run admin:create -- --username NAME [--role owner|moderator|viewer]',
  '',
  "Creates a console account with the service's configuration (DATABASE_URL and the rest).",
  'The role defaults to owner. The password is read from ADMIN_PASSWORD or the first line of',
  'standard input, and is never printed.',
  '',
].join('\n');

export type CreateArgs = { help: true } | { help: false; username: string; role: AdminRole };

const FLAGS = ['--username', '--role'] as const;

/** `--username X --role owner` (or `--flag=value`); `--help`/`-h` asks for the usage. */
export function parseArgs(argv: readonly string[]): CreateArgs {
  if (argv.some((arg) => arg === '--help' || arg === '-h')) return { help: true };
  const values: Record<string, string> = { '--role': 'owner' };
  const seen = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const equals = arg.indexOf('=');
    const flag = equals === -1 ? arg : arg.slice(0, equals);
    // An unknown argument is named as given, before any value is taken for it.
    if (!(FLAGS as readonly string[]).includes(flag))
      throw new Error(`unknown argument ${arg}; ${USAGE.split('\n')[0]}`);
    // Which of two values was meant is not for the tool to guess.
    if (seen.has(flag)) throw new Error(`${flag} is given twice`);
    seen.add(flag);
    const value = equals === -1 ? argv[++i] : arg.slice(equals + 1);
    if (value === undefined || value === '' || (equals === -1 && value.startsWith('--')))
      throw new Error(`${flag} needs a value`);
    values[flag] = value;
  }
  const { '--username': username, '--role': role } = values;
  if (!username) throw new Error('--username is required');
  if (!(ADMIN_ROLES as readonly string[]).includes(role)) throw new Error('--role must be owner, moderator or viewer');
  return { help: false, username, role: role as AdminRole };
}

/** ADMIN_PASSWORD, or the first line of stdin (never echoed: it is read, not prompted). */
async function readPassword(): Promise<string> {
  if (process.env.ADMIN_PASSWORD) return process.env.ADMIN_PASSWORD;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0];
}

/**
 * `npm run admin:create -- --username X --role owner`: creates a console account with the
 * service's own configuration (DATABASE_URL and the rest). The password comes from
 * ADMIN_PASSWORD or stdin and is never printed. Prints one JSON line with the account.
 */
async function main(): Promise<void> {
  let config;
  let args;
  try {
    const parsed = parseArgs(process.argv.slice(2));
    if (parsed.help) {
      process.stdout.write(USAGE);
      return;
    }
    args = { username: parsed.username, role: parsed.role };
    applyDevSecrets(process.env);
    config = loadConfig(process.env);
  } catch (error) {
    process.stderr.write(
      error instanceof ConfigError
        ? `admin:create: the configuration is not valid. ${error.message}\n`
        : `admin:create: ${(error as Error).message}\n`,
    );
    process.exit(1);
  }
  const password = await readPassword();
  const app = await NestFactory.createApplicationContext(
    AppModule.forRoot(config, {}, createRootLogger({ ...config.operations.log, level: 'warn' })),
    { logger: ['warn', 'error'] },
  );
  try {
    const admin = await app.get(AdminAccountsService).create(null, { ...args, password });
    process.stdout.write(`${JSON.stringify({ created: { username: admin.username, role: admin.role } })}\n`);
  } finally {
    await app.close();
  }
}

if (require.main === module)
  main().catch((error: unknown) => {
    const message = error instanceof AppError ? error.message : (error as Error).message;
    process.stderr.write(`admin:create failed: ${message}\n`);
    process.exit(1);
  });
