import type { PushDevice, PushNotification, PushProvider, PushProviderName, PushResult } from '../push-provider';
import { VendorHttpsClient, VendorHttpsError, retryAfterMs, type VendorHttpsResponse } from '../vendor-https';
import type { HuaweiConfig } from '../../../config/push/huawei-config';
import { signHuaweiJwt } from './huawei-jwt';
import {
  buildHuaweiV1Body,
  buildHuaweiV3Body,
  classifyHuaweiAnswer,
  classifyHuaweiTokenAnswer,
  type HuaweiVerdict,
} from './huawei-request';

export interface HuaweiProviderOptions {
  /** Bound on each HTTP exchange (token or send). */
  timeoutMs?: number;
  /** Connections at most: the sends in flight (PUSH_CONCURRENCY) and an access-token request. */
  maxSockets?: number;
  /** Title shown when the user's preview level hides the sender; Huawei requires one. */
  genericTitle?: string;
  now?: () => number;
}

/** A token is renewed this long before Huawei says it expires, so no send races the expiry. */
const REFRESH_MARGIN_MS = 5 * 60 * 1000;

interface CachedToken {
  value: string;
  /** When to stop using it (already the margin before the real expiry). */
  refreshAt: number;
}

/** Why no access token could be had: already a classified outcome. */
class TokenUnavailable extends Error {
  constructor(readonly result: PushResult) {
    super('access token unavailable');
  }
}

/**
 * Huawei Push Kit. Android (HMS) devices go through the v1 REST API with one OAuth access token
 * (client_credentials) shared by all sends, renewed 5 minutes before expiry with at most one
 * renewal in flight. HarmonyOS NEXT devices (`platform: 'harmony'`) go through the v3 API with a
 * JWT signed locally from the service account, re-signed 5 minutes before it expires. Either way,
 * an answer saying the credential is invalid or expired renews it and sends once more.
 */
export class HuaweiProvider implements PushProvider {
  readonly serves: readonly PushProviderName[] = ['huawei'];
  readonly name = 'huawei';

  private readonly http: VendorHttpsClient;
  private readonly sendUrl: string;
  private readonly now: () => number;
  private readonly genericTitle: string;
  private token: CachedToken | null = null;
  private tokenInFlight: Promise<string> | null = null;
  private jwt: CachedToken | null = null;

  constructor(
    private readonly config: HuaweiConfig,
    options: HuaweiProviderOptions = {},
  ) {
    this.http = new VendorHttpsClient({
      extraCaPem: config.caPem,
      timeoutMs: options.timeoutMs ?? 10_000,
      maxSockets: options.maxSockets,
    });
    this.sendUrl = `${config.pushUrl}/v1/${encodeURIComponent(config.appId)}/messages:send`;
    this.now = options.now ?? Date.now;
    this.genericTitle = options.genericTitle ?? 'New notification';
  }

  async send(device: PushDevice, notification: PushNotification): Promise<PushResult> {
    if (device.platform === 'harmony') return this.sendHarmony(device, notification);
    try {
      const body = buildHuaweiV1Body(device.token, notification, {
        badgeClass: this.config.badgeClass,
        genericTitle: this.genericTitle,
        now: this.now(),
      });
      if (!body) return { outcome: 'failed', status: null, reason: 'notification expired before it was sent' };
      const json = JSON.stringify(body);

      let accessToken = await this.accessToken();
      let answer = await this.post(accessToken, json);
      let verdict = classifyHuaweiAnswer(answer.status, answer.body, device.token);
      if (verdict.kind === 'auth') {
        this.forget(accessToken);
        accessToken = await this.accessToken();
        answer = await this.post(accessToken, json);
        verdict = classifyHuaweiAnswer(answer.status, answer.body, device.token);
      }
      return this.toResult(verdict, answer);
    } catch (error) {
      if (error instanceof TokenUnavailable) return error.result;
      if (error instanceof VendorHttpsError)
        return { outcome: 'retry', status: null, reason: `Huawei ${error.message}` };
      return { outcome: 'retry', status: null, reason: `Huawei adapter error: ${(error as Error).name}` };
    }
  }

  async close(): Promise<void> {
    this.http.close();
    this.token = null;
    this.jwt = null;
  }

  private async sendHarmony(device: PushDevice, notification: PushNotification): Promise<PushResult> {
    const harmony = this.config.harmony;
    if (!harmony) {
      // Not v1 instead: a HarmonyOS NEXT token there is answered 80300007 and would be dropped as dead.
      return {
        outcome: 'failed',
        status: null,
        reason: 'HarmonyOS device, but HUAWEI_PROJECT_ID and HUAWEI_SERVICE_ACCOUNT_FILE are not configured',
      };
    }
    try {
      const body = buildHuaweiV3Body(device.token, notification, { genericTitle: this.genericTitle, now: this.now() });
      if (!body) return { outcome: 'failed', status: null, reason: 'notification expired before it was sent' };
      const json = JSON.stringify(body);
      const url = `${this.config.pushUrl}/v3/${encodeURIComponent(harmony.projectId)}/messages:send`;
      const post = (jwt: string): Promise<VendorHttpsResponse> =>
        this.http.post(
          url,
          { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${jwt}`, 'push-type': '0' },
          json,
        );
      let jwt = this.harmonyJwt(false);
      let answer = await post(jwt);
      let verdict = classifyHuaweiAnswer(answer.status, answer.body, device.token);
      if (verdict.kind === 'auth') {
        jwt = this.harmonyJwt(true);
        answer = await post(jwt);
        verdict = classifyHuaweiAnswer(answer.status, answer.body, device.token);
      }
      return this.toResult(verdict, answer);
    } catch (error) {
      if (error instanceof VendorHttpsError)
        return { outcome: 'retry', status: null, reason: `Huawei ${error.message}` };
      return { outcome: 'retry', status: null, reason: `Huawei adapter error: ${(error as Error).name}` };
    }
  }

  /** The cached service-account JWT, re-signed when near expiry or when Huawei refused it. */
  private harmonyJwt(renew: boolean): string {
    const now = this.now();
    if (!renew && this.jwt && now < this.jwt.refreshAt) return this.jwt.value;
    const signed = signHuaweiJwt(this.config.harmony!.serviceAccount, now);
    this.jwt = { value: signed.jwt, refreshAt: signed.expiresAt - REFRESH_MARGIN_MS };
    return signed.jwt;
  }

  private toResult(verdict: HuaweiVerdict, answer: VendorHttpsResponse): PushResult {
    switch (verdict.kind) {
      case 'sent':
        return verdict.requestId
          ? { outcome: 'sent', status: answer.status, providerId: verdict.requestId }
          : { outcome: 'sent', status: answer.status };
      case 'dead_token':
        return { outcome: 'dead_token', status: answer.status, reason: verdict.reason };
      case 'failed':
        return { outcome: 'failed', status: answer.status, reason: verdict.reason };
      case 'auth':
        // A token fresh from the OAuth server refused too: Huawei's side, worth a later try.
        return { outcome: 'retry', status: answer.status, reason: `${verdict.reason} after a token refresh` };
      case 'retry': {
        const wait = retryAfterMs(answer.headers['retry-after'], this.now());
        return wait === undefined
          ? { outcome: 'retry', status: answer.status, reason: verdict.reason }
          : { outcome: 'retry', status: answer.status, reason: verdict.reason, retryAfterMs: wait };
      }
    }
  }

  private post(accessToken: string, json: string): Promise<VendorHttpsResponse> {
    return this.http.post(
      this.sendUrl,
      { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${accessToken}` },
      json,
    );
  }

  /** Drops the cached token if it is the one Huawei refused (a concurrent send may have renewed it already). */
  private forget(accessToken: string): void {
    if (this.token?.value === accessToken) this.token = null;
  }

  private accessToken(): Promise<string> {
    if (this.token && this.now() < this.token.refreshAt) return Promise.resolve(this.token.value);
    if (!this.tokenInFlight) {
      this.tokenInFlight = this.fetchToken().finally(() => {
        this.tokenInFlight = null;
      });
    }
    return this.tokenInFlight;
  }

  private async fetchToken(): Promise<string> {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.config.clientId,
      client_secret: this.config.clientSecret,
    }).toString();
    let answer: VendorHttpsResponse;
    try {
      answer = await this.http.post(
        this.config.oauthUrl,
        { 'content-type': 'application/x-www-form-urlencoded' },
        form,
      );
    } catch (error) {
      const message = error instanceof VendorHttpsError ? error.message : 'request failed';
      throw new TokenUnavailable({ outcome: 'retry', status: null, reason: `Huawei OAuth ${message}` });
    }
    const verdict = classifyHuaweiTokenAnswer(answer.status, answer.body);
    if (verdict.kind === 'retry') {
      const wait = retryAfterMs(answer.headers['retry-after'], this.now());
      throw new TokenUnavailable(
        wait === undefined
          ? { outcome: 'retry', status: answer.status, reason: verdict.reason }
          : { outcome: 'retry', status: answer.status, reason: verdict.reason, retryAfterMs: wait },
      );
    }
    if (verdict.kind === 'failed')
      throw new TokenUnavailable({ outcome: 'failed', status: answer.status, reason: verdict.reason });
    const lifetimeMs = verdict.expiresInSec * 1000;
    // A short-lived token (under twice the margin) is renewed at half its life instead.
    const margin = Math.min(REFRESH_MARGIN_MS, lifetimeMs / 2);
    this.token = { value: verdict.accessToken, refreshAt: this.now() + lifetimeMs - margin };
    return verdict.accessToken;
  }
}
