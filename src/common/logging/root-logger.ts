import pino, { Logger as PinoRoot } from 'pino';
import pretty from 'pino-pretty';
import type { OperationsConfig } from '../../config/operations-config';

/**
 * The process's one pino logger: JSON lines in production, one readable line per entry in
 * development. Request logs never carry headers, query strings or bodies (tokens travel there);
 * the redaction below is a second net for code that logs an object carrying one anyway.
 * `destination` (tests) receives JSON lines whatever the format.
 */
export function createRootLogger(log: OperationsConfig['log'], destination?: pino.DestinationStream): PinoRoot {
  const options: pino.LoggerOptions = {
    level: log.level,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      // Exact paths only: wildcards make pino copy every logged object.
      paths: ['authorization', 'token', 'secret', 'password', 'headers.authorization', 'req.headers.authorization'],
      censor: '[redacted]',
    },
  };
  if (destination) return pino(options, destination);
  if (log.format === 'json') {
    // Buffered: a write system call per 4 KiB instead of per line (one access line per request).
    // Warnings and errors (an outage starting) are written at once, the rest within a second;
    // main.ts flushes on shutdown, so only a crash can lose the last second of info lines.
    const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
    setInterval(() => destination.flush(), 1000).unref();
    return pino(
      {
        ...options,
        hooks: {
          logMethod(args, method, level) {
            method.apply(this, args);
            if (level >= pino.levels.values.warn) destination.flush();
          },
        },
      },
      destination,
    );
  }
  // Synchronous, in-process formatting: no worker thread per application (tests boot many).
  return pino(
    options,
    pretty({
      sync: true,
      colorize: process.stdout.isTTY === true,
      singleLine: true,
      ignore: 'pid,hostname',
      translateTime: 'SYS:HH:MM:ss.l',
    }),
  );
}
