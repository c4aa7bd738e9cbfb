import { Inject, Injectable, OnModuleDestroy } from '@nestjs/common';
import http from 'node:http';
import https from 'node:https';
import { randomUUID } from 'node:crypto';
import type { Logger as PinoLogger } from 'pino';
import { AppError } from '../common/app-error';
import { ErrorCode } from '../common/error-code';
import { ROOT_LOGGER } from '../common/logging/root-logger.token';
import { WebhookSignatureHeaders, signWebhook } from '../common/security/standard-webhook';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import type { BeforeSendConfig } from '../config/before-send-config';
import type { BeforeSendRequest } from '../contract/before-send';
import { MetricsService } from '../metrics/metrics.service';
import { FAILURE_REJECT_REASON, isInvalidReplacement, readBeforeSendAnswer } from './before-send-rules';

/** An answer larger than this is not a verdict on one message. */
const MAX_ANSWER_BYTES = 64 * 1024;

class HookFailure extends Error {}

/**
 * The host's before-send hook (WEBHOOK_BEFORE_SEND_URL), asked once per new user message,
 * outside any transaction. Connections are kept alive: a send pays one round trip, not a
 * handshake. A failing hook is logged when it starts failing and when it answers again, never
 * per message (an outage would otherwise flood the log at the send rate).
 */
@Injectable()
export class BeforeSendHook implements OnModuleDestroy {
  // The application's own logger, not Nest's process-wide one: each instance logs its outages.
  private readonly log: PinoLogger;
  private readonly config: BeforeSendConfig;
  private readonly agent: http.Agent | null = null;
  private outage: { since: number; failures: number } | null = null;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly metrics: MetricsService,
    @Inject(ROOT_LOGGER) root: PinoLogger,
  ) {
    this.config = config.beforeSend;
    this.log = root.child({ context: 'BeforeSendHook' });
    if (this.config.url) {
      const Agent = this.config.url.startsWith('https:') ? https.Agent : http.Agent;
      this.agent = new Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 64 });
    }
  }

  get enabled(): boolean {
    return this.config.url !== null;
  }

  /**
   * Asks the hook about a message. Answers the replacement (checked by `validate`, which
   * throws 1004 for content a client could not have sent) or null to store the message as
   * sent; throws 1203 when the host refuses it, or when the hook fails and the failure setting
   * says reject.
   */
  async check<T>(request: BeforeSendRequest, validate: (content: unknown) => Promise<T>): Promise<T | null> {
    let answer: ReturnType<typeof readBeforeSendAnswer>;
    try {
      const { status, body } = await this.post(JSON.stringify(request));
      if (status < 200 || status > 299) throw new HookFailure(`HTTP ${status}`);
      answer = readBeforeSendAnswer(body);
      if (answer.action === 'malformed') throw new HookFailure(`malformed answer: ${answer.problem}`);
    } catch (error) {
      return this.failed(error);
    }
    if (answer.action === 'replace') {
      let replacement: T;
      try {
        replacement = await validate(answer.content);
      } catch (error) {
        if (!isInvalidReplacement(error)) throw error;
        return this.failed(new HookFailure(`malformed answer: the replacement's ${error.message}`));
      }
      this.succeeded('replace');
      return replacement;
    }
    this.succeeded(answer.action);
    if (answer.action === 'reject') throw new AppError(ErrorCode.SEND_FORBIDDEN, answer.reason);
    return null;
  }

  onModuleDestroy(): void {
    this.agent?.destroy();
  }

  private succeeded(outcome: 'allow' | 'reject' | 'replace'): void {
    this.metrics.beforeSendOutcomes.inc({ outcome });
    if (!this.outage) return;
    const seconds = Math.round((Date.now() - this.outage.since) / 1000);
    this.log.info(`before-send hook answers again, after ${this.outage.failures} failed calls over ${seconds}s`);
    this.outage = null;
  }

  private failed(error: unknown): null {
    const allow = this.config.onFailure === 'allow';
    this.metrics.beforeSendOutcomes.inc({ outcome: allow ? 'failure_allowed' : 'failure_rejected' });
    if (this.outage) {
      this.outage.failures += 1;
    } else {
      this.outage = { since: Date.now(), failures: 1 };
      this.log.warn(
        `before-send hook at ${new URL(this.config.url ?? '').origin} failed (${describeFailure(error)}); ` +
          `messages are ${allow ? 'stored unchecked' : 'refused with 1203'} until it answers again ` +
          `(WEBHOOK_BEFORE_SEND_ON_FAILURE=${this.config.onFailure})`,
      );
    }
    if (allow) return null;
    throw new AppError(ErrorCode.SEND_FORBIDDEN, FAILURE_REJECT_REASON);
  }

  /** One signed POST within the timeout; a kept-alive connection the host closed meanwhile is retried once. */
  private async post(body: string): Promise<{ status: number; body: string }> {
    const deadline = Date.now() + this.config.timeoutMs;
    // A fresh ID per call: the host may dedupe on it. Real time, not the application clock:
    // receivers refuse timestamps far from their own.
    const headers = signWebhook(randomUUID(), Date.now(), body, [this.config.secret]);
    try {
      return await this.attempt(body, headers, deadline);
    } catch (error) {
      if (!(error instanceof StaleSocket) || Date.now() >= deadline) throw error;
      return this.attempt(body, headers, deadline);
    }
  }

  private attempt(
    body: string,
    headers: WebhookSignatureHeaders,
    deadline: number,
  ): Promise<{ status: number; body: string }> {
    const url = this.config.url ?? '';
    const request = url.startsWith('https:') ? https.request : http.request;
    return new Promise((resolve, reject) => {
      let answered = false;
      const req = request(
        url,
        {
          method: 'POST',
          agent: this.agent ?? undefined,
          headers: {
            ...headers,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'user-agent': 'im-before-send/1',
          },
        },
        (res) => {
          answered = true;
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_ANSWER_BYTES) req.destroy(new HookFailure(`answer larger than ${MAX_ANSWER_BYTES} bytes`));
            else chunks.push(chunk);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', reject);
        },
      );
      const timer = setTimeout(
        () => req.destroy(new HookFailure(`timed out after ${this.config.timeoutMs} ms`)),
        Math.max(0, deadline - Date.now()),
      );
      req.on('close', () => {
        clearTimeout(timer);
        // Settles a connection lost mid-answer that raised no error; after a complete answer
        // (its end comes first) this is a no-op.
        setImmediate(() => reject(new HookFailure('connection closed before the answer was complete')));
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive socket the host closed while idle fails at once, before any answer.
        const stale = req.reusedSocket && !answered && ['ECONNRESET', 'EPIPE'].includes(error.code ?? '');
        reject(stale ? new StaleSocket() : error);
      });
      req.end(body);
    });
  }
}

class StaleSocket extends Error {}

function describeFailure(error: unknown): string {
  if (error instanceof HookFailure) return error.message;
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code ? `network error ${code}` : 'network error';
}
