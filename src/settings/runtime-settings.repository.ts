import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { dialectOf } from '../database/sql-dialect';
import { RuntimeSettingEntity } from './runtime-setting.entity';
import type { SettingName } from './runtime-settings';
import type { SettingRow } from './setting-row';

@Injectable()
export class RuntimeSettingsRepository {
  constructor(@InjectRepository(RuntimeSettingEntity) private readonly rows: Repository<RuntimeSettingEntity>) {}

  /** Every stored row: a few dozen at most, read whole on each cache refresh. */
  async findAll(manager?: EntityManager): Promise<SettingRow[]> {
    return (manager ? manager.getRepository(RuntimeSettingEntity) : this.rows).find({
      select: { name: true, valueJson: true, updatedAt: true },
      order: { name: 'ASC' },
    });
  }

  /**
   * The named rows, locked until the caller's transaction ends, so a change that reads before
   * it writes (the key rotation, an audit row's "before") sees what it replaces.
   */
  async lockByNames(manager: EntityManager, names: readonly SettingName[]): Promise<SettingRow[]> {
    const dialect = dialectOf(manager);
    const query = manager
      .getRepository(RuntimeSettingEntity)
      .createQueryBuilder('s')
      .select(['s.name', 's.valueJson', 's.updatedAt'])
      .where('s.name IN (:...names)', { names: [...names] })
      .orderBy('s.name', 'ASC');
    return dialect.lockForWrite(query).getMany();
  }

  /** Inserts or replaces the rows, within the caller's transaction, in name order (one lock order for every writer). */
  async upsert(manager: EntityManager, values: Map<SettingName, string>, at: number, by: string): Promise<void> {
    const repo = manager.getRepository(RuntimeSettingEntity);
    for (const name of [...values.keys()].sort()) {
      await repo.upsert({ name, valueJson: values.get(name)!, updatedAt: at, updatedBy: by }, ['name']);
    }
  }

  async remove(manager: EntityManager, names: readonly SettingName[]): Promise<void> {
    if (names.length) await manager.getRepository(RuntimeSettingEntity).delete({ name: In([...names]) });
  }
}
