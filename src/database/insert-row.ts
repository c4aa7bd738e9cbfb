import { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';

/**
 * Inserts one row and returns its generated ID. TypeORM's own insert reloads every column
 * that has a database default, one more round trip per insert on MySQL; the service always
 * knows what it wrote, so the reload is skipped.
 */
export async function insertRow<T extends ObjectLiteral>(manager: EntityManager, target: EntityTarget<T>, values: Partial<T>): Promise<string> {
  const result = await manager.createQueryBuilder().insert().into(target).values(values as never).updateEntity(false).callListeners(false).execute();
  const raw = result.raw as { insertId?: number | string } | number | bigint | string;
  const id = typeof raw === 'object' && raw !== null ? raw.insertId : raw;
  if (id === undefined || id === null) throw new Error('insert returned no generated id');
  return String(id);
}

/** Inserts several rows in one statement, without reloading them. */
export async function insertRows<T extends ObjectLiteral>(manager: EntityManager, target: EntityTarget<T>, values: Array<Partial<T>>): Promise<void> {
  if (values.length === 0) return;
  await manager.createQueryBuilder().insert().into(target).values(values as never).updateEntity(false).callListeners(false).execute();
}
