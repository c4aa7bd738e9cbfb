import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../app.module';
import { createRootLogger } from '../common/logging/root-logger';
import { ConfigError, loadConfig } from '../config/app-config';
import { applyDevSecrets } from '../config/dev-secrets';
import { ConversationsRepairService } from '../conversations/conversations-repair.service';

/**
 * `npm run repair:conversations`: recounts every user's one-to-one unread totals and fills
 * missing peers on one-to-one member rows, with the service's own configuration (DATABASE_URL
 * and the rest). Safe while the service runs. Prints one JSON line with what it changed.
 */
async function main(): Promise<void> {
  let config;
  try {
    applyDevSecrets(process.env);
    config = loadConfig(process.env);
  } catch (error) {
    process.stderr.write(
      `Refusing to start. ${error instanceof ConfigError ? error.message : (error as Error).message}\n`,
    );
    process.exit(1);
  }
  const app = await NestFactory.createApplicationContext(
    AppModule.forRoot(config, {}, createRootLogger({ ...config.operations.log, level: 'warn' })),
    { logger: ['warn', 'error'] },
  );
  try {
    const summary = await app.get(ConversationsRepairService).repairAll();
    process.stdout.write(`${JSON.stringify({ repaired: summary })}\n`);
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`repair failed: ${(error as Error).message}\n`);
  process.exit(1);
});
