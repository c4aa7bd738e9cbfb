import pino, { Logger as PinoRoot } from 'pino';
import pretty from 'pino-pretty';
import type { OperationsConfig } from '../../config/operations-config';

/**
 * The process's one pino logger: JSON lines in production, one readable line per entry in
 * development. Request logs never carry headers, query strings or bodies (tokens travel there);
 * the redaction below is a second net for code that logs an object carrying one anyway.
 */
export function createRootLogger(log: OperationsConfig['log']): PinoRoot {
  const options: pino.LoggerOptions = {
    level: log.level,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ['headers.authorization', 'req.headers.authorization', 'authorization', 'token', 'secret', 'password', '*.token', '*.secret', '*.password'],
      censor: '[redacted]',
    },
  };
  // Buffered: a write system call per 4 KiB instead of per line (one access line per request).
  // main.ts flushes on shutdown; a crash can lose the last few lines.
  if (log.format === 'json') return pino(options, pino.destination({ dest: 1, sync: false, minLength: 4096 }));
  // Synchronous, in-process formatting: no worker thread per application (tests boot many).
  return pino(options, pretty({ sync: true, colorize: process.stdout.isTTY === true, singleLine: true, ignore: 'pid,hostname', translateTime: 'SYS:HH:MM:ss.l' }));
}
