import pino from 'pino';
import { Writable } from 'node:stream';
import { PinoNestLogger } from './pino-nest-logger';

function capture(level: pino.Level): { logger: PinoNestLogger; lines: () => Array<Record<string, unknown>> } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const root = pino({ level }, stream);
  return {
    logger: new PinoNestLogger(root),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('PinoNestLogger', () => {
  it("writes Nest's route and module start-up lines at debug level, the rest at info", () => {
    const { logger, lines } = capture('info');
    logger.log('Mapped {/app/sdk/token, POST} route', 'RouterExplorer');
    logger.log('AppModule dependencies initialized', 'InstanceLoader');
    logger.log('SyncController {/app/sdk}:', 'RoutesResolver');
    logger.log('Starting Nest application...', 'NestFactory');
    logger.log('outbox relay started', 'OutboxRelay');
    expect(lines().map((line) => line.msg)).toEqual(['outbox relay started']);
  });

  it('keeps the start-up lines at debug level, with their context', () => {
    const { logger, lines } = capture('debug');
    logger.log('Mapped {/app/sdk/token, POST} route', 'RouterExplorer');
    expect(lines()).toEqual([
      expect.objectContaining({ level: 20, context: 'RouterExplorer', msg: 'Mapped {/app/sdk/token, POST} route' }),
    ]);
  });

  it('keeps an error with its stack and context', () => {
    const { logger, lines } = capture('info');
    logger.error('failed', 'Error: failed\n    at x (y.js:1:1)', 'Relay');
    expect(lines()[0]).toMatchObject({ level: 50, context: 'Relay', msg: 'failed' });
  });
});
