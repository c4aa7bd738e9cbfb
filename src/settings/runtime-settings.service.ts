import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import {
  RuntimeSettings,
  environmentSettings,
  mergeSettings,
  overriddenSettings,
  ResettableSetting,
  SettingName,
} from './runtime-settings';
import { RuntimeSettingsRepository } from './runtime-settings.repository';
import type { SettingRow } from './setting-row';

export interface SettingsSnapshot {
  settings: RuntimeSettings;
  /** Settings whose value comes from the console rather than the environment. */
  overridden: ResettableSetting[];
  /** The newest change among the stored rows; null when every setting follows the environment. */
  updatedAt: number | null;
}

/**
 * The runtime settings in force on this instance. Every instance re-reads the table every
 * `admin.settingsRefreshMs` (and the writing instance at once), so a change made through any
 * instance applies everywhere within that interval, without a restart or a message bus. Readers
 * take the snapshot synchronously: the hot paths (send, every SDK request) never wait for it.
 */
@Injectable()
export class RuntimeSettingsService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('RuntimeSettings');
  private readonly defaults: RuntimeSettings;
  private snapshot: SettingsSnapshot;
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private failing = false;
  private readonly listeners: Array<(now: RuntimeSettings, before: RuntimeSettings) => void> = [];

  constructor(
    private readonly repository: RuntimeSettingsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.defaults = environmentSettings(config);
    this.snapshot = { settings: this.defaults, overridden: [], updatedAt: null };
  }

  async onModuleInit(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.config.admin.settingsRefreshMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** The settings in force now. */
  get current(): RuntimeSettings {
    return this.snapshot.settings;
  }

  get view(): SettingsSnapshot {
    return this.snapshot;
  }

  get environment(): RuntimeSettings {
    return this.defaults;
  }

  /** Called with the new and the previous settings after a refresh changed anything. */
  onChange(listener: (now: RuntimeSettings, before: RuntimeSettings) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Re-reads the table. Concurrent callers share one read. When the database does not answer,
   * the last settings read stay in force (logged once per outage), never a 500 and never a
   * silent fallback to the environment that would reopen what an operator closed.
   */
  refresh(): Promise<void> {
    this.inFlight ??= this.load().finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  /** A read that starts after the caller's committed change, so its result includes it. */
  async reload(): Promise<void> {
    const pending = this.inFlight;
    if (pending) await pending;
    await this.refresh();
  }

  /**
   * The named stored rows, locked until the caller's transaction ends, so a change that reads
   * before it writes (the key rotation, an audit row's "before") sees what it replaces.
   */
  lockRows(manager: EntityManager, names: readonly SettingName[]): Promise<SettingRow[]> {
    return this.repository.lockByNames(manager, names);
  }

  /** Stores the values (JSON texts) as overrides within the caller's transaction; `reload` applies them. */
  storeRows(manager: EntityManager, values: Map<SettingName, string>, at: number, by: string): Promise<void> {
    return this.repository.upsert(manager, values, at, by);
  }

  /** Drops the overrides within the caller's transaction: those settings follow the environment again. */
  removeRows(manager: EntityManager, names: readonly SettingName[]): Promise<void> {
    return this.repository.remove(manager, names);
  }

  private async load(): Promise<void> {
    let rows;
    try {
      rows = await this.repository.findAll();
    } catch (error) {
      if (!this.failing)
        this.logger.warn(`settings refresh failed, keeping the last ones: ${(error as Error).message}`);
      this.failing = true;
      return;
    }
    if (this.failing) this.logger.log('settings refresh works again');
    this.failing = false;
    const { settings, skipped } = mergeSettings(this.defaults, rows);
    if (skipped.length)
      this.logger.warn(`runtime_settings rows not understood, environment values apply: ${skipped.join(', ')}`);
    const before = this.snapshot.settings;
    this.snapshot = {
      settings,
      overridden: overriddenSettings(rows.map((r) => r.name)),
      updatedAt: rows.length ? Math.max(...rows.map((r) => r.updatedAt)) : null,
    };
    if (JSON.stringify(settings) === JSON.stringify(before)) return;
    for (const listener of this.listeners) {
      try {
        listener(settings, before);
      } catch (error) {
        this.logger.error(`a settings listener failed: ${(error as Error).message}`);
      }
    }
  }
}
