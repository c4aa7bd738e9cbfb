import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Clock } from '../common/clock';
import { ErrorCode } from '../common/error-code';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { CAPABILITY_NAMES, RATE_LIMIT_NAMES } from '../config/messaging-config';
import { TransactionRunner } from '../database/transaction-runner';
import {
  ResettableSetting,
  SETTING_LIMITS,
  SettingName,
  environmentSettings,
  keyFingerprint,
  normaliseKeywords,
  rowsOf,
} from '../settings/runtime-settings';
import { RuntimeSettingsService } from '../settings/runtime-settings.service';
import type { SettingRow } from '../settings/setting-row';
import type { AdminActor } from './admin-actor';
import { AdminAuditService } from './admin-audit.service';
import { changedRows } from './admin-settings-rows';
import { ResetSettingsDto, UpdateSettingsDto } from './admin-settings.dto';
import { RuntimeSettingsReply, toRuntimeSettingsReply } from './admin-settings.reply';

const TARGET = { targetType: 'settings', targetId: 'runtime' } as const;
const KEY_ROWS: SettingName[] = ['rtc_callback_key', 'rtc_next_callback_key'];

/**
 * The console's Settings page. Each change is written with its audit row in one transaction
 * (a save of what is already in force writes neither); this instance applies it before
 * replying, every other one at its next refresh. Callback keys
 * appear in the audit log and in replies as fingerprints only.
 */
@Injectable()
export class AdminSettingsService {
  constructor(
    private readonly settings: RuntimeSettingsService,
    private readonly audit: AdminAuditService,
    private readonly tx: TransactionRunner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  async get(): Promise<RuntimeSettingsReply> {
    await this.settings.refresh();
    return this.reply();
  }

  async update(actor: AdminActor, dto: UpdateSettingsDto): Promise<RuntimeSettingsReply> {
    const values = this.rowsToWrite(dto);
    if (values.size === 0)
      throw new AppError(ErrorCode.INVALID_PARAMETER, 'settings: send at least one setting to change');
    await this.tx.run(async (manager) => {
      const before = await this.settings.lockRows(manager, [...values.keys()]);
      const changed = changedRows(values, before, environmentSettings(this.config));
      if (changed.size === 0) return;
      await this.settings.storeRows(manager, changed, this.clock.now(), actor.username);
      await this.audit.record(manager, actor, {
        action: 'settings.updated',
        ...TARGET,
        before: auditedRows(before, [...changed.keys()]),
        after: Object.fromEntries([...changed].map(([name, json]) => [name, JSON.parse(json) as unknown])),
      });
    });
    return this.applied();
  }

  async reset(actor: AdminActor, dto: ResetSettingsDto): Promise<RuntimeSettingsReply> {
    const names = [...new Set(dto.keys.flatMap((key: ResettableSetting) => rowsOf(key)))];
    await this.tx.run(async (manager) => {
      const before = await this.settings.lockRows(manager, names);
      await this.settings.removeRows(manager, names);
      await this.audit.record(manager, actor, {
        action: 'settings.reset',
        ...TARGET,
        before: auditedRows(before, names),
        after: { reset: [...dto.keys] },
      });
    });
    return this.applied();
  }

  /** Starts a rotation: the new key verifies room callbacks alongside the current one. */
  async stageCallbackKey(actor: AdminActor, key: string): Promise<RuntimeSettingsReply> {
    const otherSecrets = [this.config.rtc.secretKey, this.config.sdkSecret, this.config.jwtSecret].filter(Boolean);
    // Whoever configures the provider's callback learns this key: it must not double as a secret that signs more.
    if (otherSecrets.includes(key))
      throw new AppError(ErrorCode.INVALID_PARAMETER, 'key: must differ from the service’s other secrets');
    await this.tx.run(async (manager) => {
      const before = await this.settings.lockRows(manager, KEY_ROWS);
      const current = this.currentKey(before);
      if (key === current)
        throw new AppError(ErrorCode.INVALID_PARAMETER, 'key: this is already the current callback key');
      await this.settings.storeRows(
        manager,
        new Map([['rtc_next_callback_key', JSON.stringify(key)]]),
        this.clock.now(),
        actor.username,
      );
      await this.audit.record(manager, actor, {
        action: 'settings.callback_key_staged',
        ...TARGET,
        before: this.keyFingerprints(before),
        after: { current: keyFingerprint(current), next: keyFingerprint(key) },
      });
    });
    return this.applied();
  }

  /** Ends a rotation: the staged key becomes the only one (the provider now signs with it). */
  async promoteCallbackKey(actor: AdminActor): Promise<RuntimeSettingsReply> {
    await this.tx.run(async (manager) => {
      const before = await this.settings.lockRows(manager, KEY_ROWS);
      const next = staged(before);
      await this.settings.storeRows(
        manager,
        new Map([['rtc_callback_key', JSON.stringify(next)]]),
        this.clock.now(),
        actor.username,
      );
      await this.settings.removeRows(manager, ['rtc_next_callback_key']);
      await this.audit.record(manager, actor, {
        action: 'settings.callback_key_promoted',
        ...TARGET,
        before: this.keyFingerprints(before),
        after: { current: keyFingerprint(next), next: null },
      });
    });
    return this.applied();
  }

  /** Abandons a rotation: only the current key verifies again. */
  async cancelCallbackKey(actor: AdminActor): Promise<RuntimeSettingsReply> {
    await this.tx.run(async (manager) => {
      const before = await this.settings.lockRows(manager, KEY_ROWS);
      staged(before);
      await this.settings.removeRows(manager, ['rtc_next_callback_key']);
      await this.audit.record(manager, actor, {
        action: 'settings.callback_key_cancelled',
        ...TARGET,
        before: this.keyFingerprints(before),
        after: { current: keyFingerprint(this.currentKey(before)), next: null },
      });
    });
    return this.applied();
  }

  private rowsToWrite(dto: UpdateSettingsDto): Map<SettingName, string> {
    const values = new Map<SettingName, string>();
    const put = (name: SettingName, value: unknown) => values.set(name, JSON.stringify(value));
    if (dto.sdk_enabled !== undefined) put('sdk_enabled', dto.sdk_enabled);
    if (dto.capabilities) {
      const patch = dto.capabilities;
      for (const name of CAPABILITY_NAMES) if (patch[name] !== undefined) put(`capabilities.${name}`, patch[name]);
      if (!CAPABILITY_NAMES.some((name) => patch[name] !== undefined))
        throw new AppError(
          ErrorCode.INVALID_PARAMETER,
          `capabilities: send at least one of ${CAPABILITY_NAMES.join(', ')} as a JSON boolean`,
        );
    }
    if (dto.blocked_keywords) put('blocked_keywords', normaliseKeywords(dto.blocked_keywords));
    if (dto.recall_window_seconds !== undefined) put('recall_window_seconds', dto.recall_window_seconds);
    if (dto.rate_limits) {
      const patch = dto.rate_limits;
      for (const name of RATE_LIMIT_NAMES) {
        const rule = patch[name];
        if (rule) put(`rate_limits.${name}`, { limit: rule.limit, window_ms: rule.window_ms });
      }
      if (!RATE_LIMIT_NAMES.some((name) => patch[name] !== undefined))
        throw new AppError(
          ErrorCode.INVALID_PARAMETER,
          `rate_limits: send at least one of ${RATE_LIMIT_NAMES.join(', ')} as {limit, window_ms}`,
        );
    }
    if (dto.push_rules) {
      dto.push_rules.forEach((rule, index) => {
        if (Buffer.byteLength(JSON.stringify(rule.config), 'utf8') > SETTING_LIMITS.pushConfigBytes)
          throw new AppError(
            ErrorCode.INVALID_PARAMETER,
            `push_rules[${index}].config: at most ${SETTING_LIMITS.pushConfigBytes} bytes as JSON`,
          );
      });
      put(
        'push_rules',
        dto.push_rules.map((r) => ({
          platform: r.platform,
          manufacturer: r.manufacturer,
          package_name: r.package_name,
          config: r.config,
        })),
      );
    }
    if (dto.rtc_sdk_app_id !== undefined) put('rtc_sdk_app_id', dto.rtc_sdk_app_id);
    return values;
  }

  private currentKey(rows: SettingRow[]): string {
    const row = rows.find((r) => r.name === 'rtc_callback_key');
    return row ? (JSON.parse(row.valueJson) as string) : this.config.rtc.callbackSecret;
  }

  private keyFingerprints(rows: SettingRow[]): { current: string; next: string | null } {
    const next = rows.find((r) => r.name === 'rtc_next_callback_key');
    return {
      current: keyFingerprint(this.currentKey(rows)),
      next: next ? keyFingerprint(JSON.parse(next.valueJson) as string) : null,
    };
  }

  private async applied(): Promise<RuntimeSettingsReply> {
    await this.settings.reload();
    return this.reply();
  }

  private reply(): RuntimeSettingsReply {
    return toRuntimeSettingsReply(this.settings.view, this.config.admin.settingsRefreshMs);
  }
}

function staged(rows: SettingRow[]): string {
  const row = rows.find((r) => r.name === 'rtc_next_callback_key');
  if (!row) throw new AppError(ErrorCode.INVALID_PARAMETER, 'rtc: no callback key is staged (stage one first)');
  return JSON.parse(row.valueJson) as string;
}

/** The audit's "before": each named row's stored value, or null where the environment applied. */
function auditedRows(rows: SettingRow[], names: readonly string[]): Record<string, unknown> {
  const stored = new Map(rows.map((r) => [r.name, r.valueJson]));
  return Object.fromEntries(
    names.map((name) => [name, stored.has(name) ? (JSON.parse(stored.get(name)!) as unknown) : null]),
  );
}
