import type { ColumnType, Generated } from 'kysely';

/**
 * The column types every table shares. The modules' tables import them from here, and schema.ts assembles the
 * modules' tables into the database's type, so nothing imports back from the schema.
 */

/** A timestamp column: read as Date, written as Date or an ISO string. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
export type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
export type UpdatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
export type Id = Generated<number>;

export type SideText = 'YES' | 'NO';
export type ActionText = 'BUY' | 'SELL';
