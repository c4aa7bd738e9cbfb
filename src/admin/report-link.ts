import type { EntityManager } from 'typeorm';

/**
 * An action taken from a report (POST /app/admin/reports/act). The action's audit row carries
 * the report's ID, and `linked` (the report's move to reviewed, with its own audit row) runs in
 * the action's transaction right after that row: the action and the report's move commit
 * together or not at all.
 */
export interface ReportLink {
  id: string;
  linked(manager: EntityManager): Promise<void>;
}
