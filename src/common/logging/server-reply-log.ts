import type { Logger as PinoRoot } from 'pino';
import type { MetricsService } from '../../metrics/metrics.service';
import type { ServerReplyReporter } from '../http/server-reply';
import { writeAccessLine } from './access-line';

/** The access line and counter of each reply the HTTP server wrote before any request existed. */
export function serverReplyLog(root: PinoRoot, metrics: MetricsService): ServerReplyReporter {
  return (event) => {
    metrics.connectionErrors.inc({ reason: event.reason });
    writeAccessLine(root, {
      traceId: event.traceId,
      req: { remoteAddress: event.remoteAddress },
      status: event.status,
      code: event.code,
      reason: event.reason,
    });
  };
}
