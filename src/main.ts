import 'reflect-metadata';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Server } from 'node:http';
import type { Logger as PinoRoot } from 'pino';
import { createApp } from './app.factory';
import { StandbyServer } from './common/http/standby-server';
import { createRootLogger } from './common/logging/root-logger';
import { AppConfig, ConfigError, loadConfig } from './config/app-config';
import { applyDevSecrets, describeDevSecrets, DevSecretsUse } from './config/dev-secrets';
import { startupBanner } from './config/startup-banner';
import { waitForDatabase } from './database/wait-for-database';
import { Lifecycle } from './health/lifecycle';
import { RealtimeService } from './realtime/realtime.service';

function describeDatabase(config: AppConfig): string {
  return config.database.type === 'sqlite'
    ? `sqlite ${config.database.path}`
    : `mysql ${config.database.host}:${config.database.port}/${config.database.database}`;
}

/**
 * SIGTERM / SIGINT: readiness fails at once, the listener closes, idle keep-alive connections
 * close, requests in flight get SHUTDOWN_TIMEOUT_MS to finish, then the pools and Redis close.
 */
function drainOnSignals(app: NestExpressApplication, config: AppConfig, log: PinoRoot): void {
  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: draining requests in flight');
    // Whatever hangs below (a pool waiting on a frozen database), the process ends.
    setTimeout(() => {
      log.error('shutdown did not finish in time; exiting');
      process.exit(1);
    }, config.operations.shutdownTimeoutMs + 5000).unref();
    app.get(Lifecycle).beginShutdown();
    // Sockets are told to go at once (new handshakes are refused while draining): clients
    // reconnect to another instance and resume from their last position.
    app.get(RealtimeService).disconnectAll();
    const server = app.getHttpServer() as Server;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // A keep-alive connection becomes idle when its request in flight ends: close it then.
    const sweep = setInterval(() => server.closeIdleConnections(), 100);
    server.closeIdleConnections();
    const deadline = setTimeout(() => {
      log.warn(
        { timeoutMs: config.operations.shutdownTimeoutMs },
        'requests still in flight at the shutdown deadline; closing their connections',
      );
      server.closeAllConnections();
    }, config.operations.shutdownTimeoutMs);
    await closed;
    clearInterval(sweep);
    clearTimeout(deadline);
    try {
      await app.close();
    } catch (error) {
      // Every request was answered; a pool or Redis client that fails to close changes nothing.
      log.warn({ err: error }, 'closing the database pool or Redis failed');
    }
    log.info('stopped');
    await new Promise<void>((resolve) => log.flush(() => resolve()));
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      stop(signal).catch((error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
    });
  }
}

async function bootstrap(): Promise<void> {
  let config: AppConfig;
  let devSecrets: DevSecretsUse | null;
  try {
    devSecrets = applyDevSecrets(process.env);
    config = loadConfig(process.env);
  } catch (error) {
    // The message lists which settings are wrong, never their values.
    process.stderr.write(
      `Refusing to start. ${error instanceof ConfigError ? error.message : (error as Error).message}\n`,
    );
    process.exit(1);
  }
  const log = createRootLogger(config.operations.log);
  const standby = await StandbyServer.start(config.port, config.http);
  // Until the application serves, a signal just stops the stand-by responder.
  const stopEarly = (): void => {
    log.info('stopped before the service was up');
    void standby.stop().then(() => process.exit(0));
  };
  process.once('SIGTERM', stopEarly).once('SIGINT', stopEarly);
  await waitForDatabase(config.database, config.operations.database, log, () =>
    standby.waitingFor('waiting for the database'),
  );
  standby.waitingFor('migrating and starting');
  const app = await createApp(config, {}, log);
  await app.init();
  process.off('SIGTERM', stopEarly).off('SIGINT', stopEarly);
  await standby.stop();
  await app.listen(config.port);
  drainOnSignals(app, config, log);
  for (const line of startupBanner(config, describeDatabase(config))) log.info(line);
  if (devSecrets) log.info(describeDevSecrets(devSecrets));
}

bootstrap().catch((error: unknown) => {
  process.stderr.write(`Start-up failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
