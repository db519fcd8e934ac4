import type { ColumnType } from 'kysely';

export interface FeatureFlagsTable {
  key: string;
  enabled: boolean;
  description: string;
  updated_by: number | null;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface FlagTables {
  feature_flags: FeatureFlagsTable;
}
