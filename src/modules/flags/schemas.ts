import { Type } from '@sinclair/typebox';
import { IdString } from '../../platform/http.js';

export const FlagKeyParams = Type.Object({
  key: Type.String({ pattern: '^[a-z][a-zA-Z0-9]{0,63}$', description: 'Flag key, e.g. deposits' }),
});

export const FlagMap = Type.Record(Type.String(), Type.Boolean(), {
  description: 'Every flag by key with its effective value',
  examples: [
    { deposits: false, withdrawals: false, cricketLive: false, copyTrading: true, newsSummary: true },
  ],
});

export const Flag = Type.Object({
  key: Type.String(),
  enabled: Type.Boolean({ description: 'The value set by operators' }),
  effective: Type.Boolean({
    description: 'What clients and the service see: enabled and its prerequisite met',
  }),
  blockedBy: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the flag is off regardless of `enabled` (a missing provider), or null',
  }),
  description: Type.String(),
  updatedAt: Type.String({ format: 'date-time' }),
  updatedBy: Type.Union([IdString, Type.Null()], { description: 'The admin who last changed it' }),
});

export const SetFlagBody = Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false });
