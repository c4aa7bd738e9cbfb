/** A stored runtime_settings row as the admin console's Settings page reads it (no writer name). */
export interface SettingRow {
  name: string;
  valueJson: string;
  updatedAt: number;
}
