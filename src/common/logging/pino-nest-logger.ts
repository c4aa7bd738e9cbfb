import type { LoggerService } from '@nestjs/common';
import type { Level, Logger as PinoRoot } from 'pino';

const STACK = /\n\s*at /;

/**
 * Nest's start-up chatter (one line per module, controller and route: ~150 lines) is for
 * debugging a wiring problem, not for an operator reading the start-up log.
 */
const BOOT_CONTEXTS = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'WebSocketsController',
  'NestFactory',
]);

/**
 * Nest's logger interface over the process's pino logger, so Nest's own lines and every
 * `new Logger(context)` in the code are JSON lines like the rest. Nest calls
 * `error(message, stack?, context?)` and the other levels `(message, context?)`.
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly root: PinoRoot) {}

  log(message: unknown, ...rest: unknown[]): void {
    const context = rest[rest.length - 1];
    this.write(typeof context === 'string' && BOOT_CONTEXTS.has(context) ? 'debug' : 'info', message, rest);
  }

  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }

  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }

  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }

  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }

  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  private write(level: Level, message: unknown, rest: unknown[]): void {
    if (!this.root.isLevelEnabled(level)) return;
    const last = rest[rest.length - 1];
    const context = typeof last === 'string' && !STACK.test(last) ? (rest.pop() as string) : undefined;
    const stack = typeof rest[0] === 'string' && STACK.test(rest[0]) ? rest[0] : undefined;
    const fields: Record<string, unknown> = context === undefined ? {} : { context };
    if (message instanceof Error) this.root[level]({ ...fields, err: message }, message.message);
    else if (stack !== undefined)
      this.root[level]({ ...fields, err: { message: String(message), stack } }, String(message));
    else if (typeof message === 'object' && message !== null) this.root[level]({ ...fields, ...message });
    else this.root[level](fields, String(message));
  }
}
