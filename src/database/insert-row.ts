import { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';

/**
 * Builds a plain INSERT from the entity's column metadata: the columns given in the first row,
 * values converted by the driver as TypeORM would (transformers, booleans). TypeORM's insert
 * builder reloads every column with a database default (one more round trip on MySQL) and
 * spends noticeable CPU composing the statement on the hot write paths; the service always
 * knows what it wrote.
 */
function buildInsert<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  rows: Array<Partial<T>>,
): { sql: string; params: unknown[] } {
  const metadata = manager.connection.getMetadata(target);
  const driver = manager.connection.driver;
  const first = rows[0] as ObjectLiteral;
  const columns = metadata.columns.filter(
    (column) => !(column.isPrimary && column.isGenerated) && first[column.propertyName] !== undefined,
  );
  const given = columns.map((column) => column.propertyName).join(',');
  const placeholders = `(${columns.map(() => '?').join(', ')})`;
  const params: unknown[] = [];
  for (const row of rows as ObjectLiteral[]) {
    // One statement needs one column list: every row must give the same columns.
    const keys = metadata.columns
      .filter((column) => !(column.isPrimary && column.isGenerated) && row[column.propertyName] !== undefined)
      .map((column) => column.propertyName);
    if (keys.join(',') !== given) throw new Error(`insertRows(${metadata.tableName}): rows give different columns`);
    for (const column of columns) params.push(driver.preparePersistentValue(row[column.propertyName], column));
  }
  const names = columns.map((column) => driver.escape(column.databaseName)).join(', ');
  return {
    sql: `INSERT INTO ${driver.escape(metadata.tableName)} (${names}) VALUES ${rows.map(() => placeholders).join(', ')}`,
    params,
  };
}

/** Inserts one row and returns its generated ID. */
export async function insertRow<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  values: Partial<T>,
): Promise<string> {
  const { sql, params } = buildInsert(manager, target, [values]);
  // mysql2 answers with a result header (insertId); better-sqlite3, through TypeORM, with the row ID.
  const raw = (await manager.query(sql, params)) as { insertId?: number | string } | number | bigint | string;
  const id = typeof raw === 'object' && raw !== null ? raw.insertId : raw;
  if (id === undefined || id === null) throw new Error('insert returned no generated id');
  return String(id);
}

/** Inserts several rows in one statement, without reloading them. */
export async function insertRows<T extends ObjectLiteral>(
  manager: EntityManager,
  target: EntityTarget<T>,
  values: Array<Partial<T>>,
): Promise<void> {
  if (values.length === 0) return;
  const { sql, params } = buildInsert(manager, target, values);
  await manager.query(sql, params);
}
