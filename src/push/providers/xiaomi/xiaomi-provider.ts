import type { PushDevice, PushNotification, PushProvider, PushProviderName, PushResult } from '../push-provider';
import { VendorHttpsClient, VendorHttpsError, retryAfterMs } from '../vendor-https';
import type { XiaomiConfig } from '../../../config/push/xiaomi-config';
import { buildXiaomiForm, classifyXiaomiAnswer } from './xiaomi-request';

export interface XiaomiProviderOptions {
  /** Bound on each HTTP exchange. */
  timeoutMs?: number;
  /** Connections at most: the sends in flight (PUSH_CONCURRENCY) and an access-token request. */
  maxSockets?: number;
  /** Title shown when the user's preview level hides the sender; Xiaomi requires one. */
  genericTitle?: string;
  now?: () => number;
}

/**
 * Xiaomi Mi Push over the v3 REST API (one regid per request). Authentication is the static
 * AppSecret, so there is no token to keep; only keep-alive sockets.
 */
export class XiaomiProvider implements PushProvider {
  readonly serves: readonly PushProviderName[] = ['xiaomi'];
  readonly name = 'xiaomi';

  private readonly http: VendorHttpsClient;
  private readonly sendUrl: string;
  private readonly now: () => number;
  private readonly genericTitle: string;

  constructor(
    private readonly config: XiaomiConfig,
    options: XiaomiProviderOptions = {},
  ) {
    this.http = new VendorHttpsClient({
      extraCaPem: config.caPem,
      timeoutMs: options.timeoutMs ?? 10_000,
      maxSockets: options.maxSockets,
    });
    this.sendUrl = `${config.url}/v3/message/regid`;
    this.now = options.now ?? Date.now;
    this.genericTitle = options.genericTitle ?? 'New notification';
  }

  async send(device: PushDevice, notification: PushNotification): Promise<PushResult> {
    // The configured package is authoritative; a registration from another build of the app would
    // be refused by Xiaomi anyway, and saying so here names the cause.
    if (device.packageName && device.packageName !== this.config.packageName) {
      return {
        outcome: 'failed',
        status: null,
        reason: `registration's package ${device.packageName} is not XIAOMI_PACKAGE_NAME ${this.config.packageName}`,
      };
    }
    try {
      const form = buildXiaomiForm(device.token, notification, {
        packageName: this.config.packageName,
        channelId: this.config.channelId,
        genericTitle: this.genericTitle,
        now: this.now(),
      });
      if (!form) return { outcome: 'failed', status: null, reason: 'notification expired before it was sent' };
      const answer = await this.http.post(
        this.sendUrl,
        {
          'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
          authorization: `key=${this.config.appSecret}`,
        },
        form.toString(),
      );
      const verdict = classifyXiaomiAnswer(answer.status, answer.body, device.token);
      switch (verdict.kind) {
        case 'sent':
          return verdict.messageId
            ? { outcome: 'sent', status: answer.status, providerId: verdict.messageId }
            : { outcome: 'sent', status: answer.status };
        case 'dead_token':
          return { outcome: 'dead_token', status: answer.status, reason: verdict.reason };
        case 'failed':
          return { outcome: 'failed', status: answer.status, reason: verdict.reason };
        case 'retry': {
          const wait = retryAfterMs(answer.headers['retry-after'], this.now());
          return wait === undefined
            ? { outcome: 'retry', status: answer.status, reason: verdict.reason }
            : { outcome: 'retry', status: answer.status, reason: verdict.reason, retryAfterMs: wait };
        }
      }
    } catch (error) {
      if (error instanceof VendorHttpsError)
        return { outcome: 'retry', status: null, reason: `Xiaomi ${error.message}` };
      return { outcome: 'retry', status: null, reason: `Xiaomi adapter error: ${(error as Error).name}` };
    }
  }

  async close(): Promise<void> {
    this.http.close();
  }
}
