import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AdminAccountsService } from '../admin/admin-accounts.service';
import { ADMIN_ROLES, AdminRole } from '../admin/admin.entities';
import { AppModule } from '../app.module';
import { AppError } from '../common/app-error';
import { createRootLogger } from '../common/logging/root-logger';
import { ConfigError, loadConfig } from '../config/app-config';
import { applyDevSecrets } from '../config/dev-secrets';

/** `--username X --role owner`; the role defaults to owner (the first administrator). */
export function parseArgs(argv: readonly string[]): { username: string; role: AdminRole } {
  let username = '';
  let role: string = 'owner';
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2);
    const value = inline ?? argv[++i] ?? '';
    if (flag === '--username') username = value;
    else if (flag === '--role') role = value;
    else
      throw new Error(
        `unknown argument ${argv[i]}; usage: admin:create -- --username NAME [--role owner|moderator|viewer]`,
      );
  }
  if (!username) throw new Error('--username is required');
  if (!(ADMIN_ROLES as readonly string[]).includes(role)) throw new Error('--role must be owner, moderator or viewer');
  return { username, role: role as AdminRole };
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
    args = parseArgs(process.argv.slice(2));
    applyDevSecrets(process.env);
    config = loadConfig(process.env);
  } catch (error) {
    process.stderr.write(
      `Refusing to start. ${error instanceof ConfigError ? error.message : (error as Error).message}\n`,
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
