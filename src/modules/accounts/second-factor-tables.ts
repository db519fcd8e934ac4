import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt, Id, Timestamp } from '../../platform/db/columns.js';

export interface SecondFactorsTable {
  id: Id;
  user_id: number;
  kind: 'totp';
  secret: string;
  last_time_step: number | null;
  confirmed_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface RecoveryCodesTable {
  id: Id;
  user_id: number;
  code_hash: string;
  used_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface LoginChallengesTable {
  id: Id;
  user_id: number;
  token_hash: string;
  attempts: Generated<number>;
  expires_at: Timestamp;
  used_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface SessionFactorsTable {
  session_id: number;
  verified_at: Timestamp;
}

export interface PasskeysTable {
  id: Id;
  user_id: number;
  name: string;
  credential_id: string;
  public_key: string;
  counter: Generated<number>;
  transports: ColumnType<string[], string[] | undefined, string[]>;
  user_handle: string;
  backed_up: Generated<boolean>;
  created_at: CreatedAt;
  last_used_at: Timestamp | null;
}

export interface PasskeyChallengesTable {
  id: Id;
  user_id: number | null;
  purpose: 'register' | 'authenticate';
  challenge: string;
  user_handle: string | null;
  expires_at: Timestamp;
  used_at: Timestamp | null;
  created_at: CreatedAt;
}

export interface SecondFactorTables {
  second_factors: SecondFactorsTable;
  recovery_codes: RecoveryCodesTable;
  login_challenges: LoginChallengesTable;
  session_factors: SessionFactorsTable;
  passkeys: PasskeysTable;
  passkey_challenges: PasskeyChallengesTable;
}
