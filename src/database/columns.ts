import { PrimaryGeneratedColumn, ValueTransformer } from 'typeorm';
import type { PrimaryGeneratedColumnNumericOptions } from 'typeorm/decorator/options/PrimaryGeneratedColumnNumericOptions';

/** BIGINT millisecond times come back as numbers or (mysql2, beyond 2^53) strings. */
export const msTime: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null || value === undefined ? value : Number(value)),
};

/** BIGINT IDs are kept as decimal strings in the service, whatever the driver returns (number or string). */
export const bigintId: ValueTransformer = {
  to: (value: string | null | undefined) => value,
  from: (value: string | number | null) => (value === null || value === undefined ? value : String(value)),
};

/**
 * The BIGINT auto-increment primary key, read as a decimal string on every driver.
 * (TypeORM passes the transformer through although its option type does not list it.)
 */
export function IdColumn(): PropertyDecorator {
  return PrimaryGeneratedColumn('increment', {
    type: 'bigint',
    transformer: bigintId,
  } as PrimaryGeneratedColumnNumericOptions);
}
