import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createApp } from './app.factory';
import { ConfigError, loadConfig } from './config/app-config';
import { applyDevSecrets } from './config/dev-secrets';

async function bootstrap(): Promise<void> {
  const logger = new Logger('Bootstrap');
  let config;
  let secretsFile: string | null;
  try {
    secretsFile = applyDevSecrets(process.env);
    config = loadConfig(process.env);
  } catch (error) {
    // The message lists which settings are wrong, never their values.
    process.stderr.write(`Refusing to start. ${error instanceof ConfigError ? error.message : (error as Error).message}\n`);
    process.exit(1);
  }
  const app = await createApp(config);
  await app.listen(config.port);
  const database = config.database.type === 'sqlite' ? `sqlite ${config.database.path}` : `mysql ${config.database.host}:${config.database.port}/${config.database.database}`;
  logger.log(`IM SDK service listening on http://localhost:${config.port} (${config.nodeEnv}, database: ${database})`);
  if (secretsFile) logger.log(`Development secrets (SDK_SECRET, JWT_SECRET, RTC_*) were read from ${secretsFile}; set them in the environment for production.`);
}

void bootstrap();
