import { Column, Entity, PrimaryColumn } from 'typeorm';
import { msTime } from '../database/columns';

/** One console-set value per name (see SETTING_NAMES); a name without a row follows the environment. */
@Entity('runtime_settings')
export class RuntimeSettingEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  name: string;

  @Column({ name: 'value_json', type: 'text' })
  valueJson: string;

  @Column({ name: 'updated_at', type: 'bigint', transformer: msTime })
  updatedAt: number;

  /** The administrator's username at the time (the audit log has the full record). */
  @Column({ name: 'updated_by', type: 'varchar', length: 32 })
  updatedBy: string;
}
