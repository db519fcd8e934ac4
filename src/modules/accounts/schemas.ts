import { Type } from '@sinclair/typebox';
import type { UserRow } from '../../platform/db/schema.js';
import { IdString, iso } from '../../platform/http.js';

export const Email = Type.String({ format: 'email', minLength: 3, maxLength: 254 });
export const Password = Type.String({ minLength: 8, maxLength: 128 });

export const RegisterBody = Type.Object(
  {
    email: Email,
    password: Password,
    username: Type.Optional(
      Type.String({ pattern: '^[a-zA-Z0-9_]{3,30}$', description: '3..30 letters, digits, _' }),
    ),
    firstName: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
    lastName: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
    referralCode: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
    inviteCode: Type.Optional(Type.String({ minLength: 1, maxLength: 32 })),
  },
  { additionalProperties: false },
);

export const LoginBody = Type.Object({
  email: Type.String({ maxLength: 254 }),
  password: Type.String({ maxLength: 128 }),
});

export const User = Type.Object({
  id: IdString,
  email: Type.String(),
  username: Type.String(),
  firstName: Type.Union([Type.String(), Type.Null()]),
  lastName: Type.Union([Type.String(), Type.Null()]),
  role: Type.Union([Type.Literal('user'), Type.Literal('admin')]),
  referralCode: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
});

export const Me = Type.Composite([
  User,
  Type.Object({ balance: Type.Object({ cashCents: Type.Integer(), reservedCents: Type.Integer() }) }),
]);

export const StreakBody = Type.Object({
  current: Type.Integer({ description: 'Consecutive days up to today (0 when lapsed)' }),
  longest: Type.Integer(),
  lastDay: Type.Union([Type.String({ format: 'date' }), Type.Null()]),
  awardedToday: Type.Boolean(),
  nextBonus: Type.Object({
    day: Type.Integer(),
    bonusCents: Type.Integer(),
    availableOn: Type.Union([Type.Literal('today'), Type.Literal('tomorrow')]),
  }),
});

export const Session = Type.Object({
  token: Type.String({ description: 'Bearer session token' }),
  expiresAt: Type.String({ format: 'date-time' }),
  user: User,
});

export const LoginResult = Type.Composite([
  Session,
  Type.Object({ streak: Type.Composite([StreakBody, Type.Object({ awardedCents: Type.Integer() })]) }),
]);

export const ApiKey = Type.Object({
  id: IdString,
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key, to recognise it' }),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description:
      'When the key was last used; recorded at most once a minute, so it may lag by up to a minute',
  }),
  lastUsedFrom: Type.Union([Type.String(), Type.Null()], {
    description: 'The address of that last recorded use',
  }),
});

export const CreatedApiKey = Type.Composite([
  ApiKey,
  Type.Object({ key: Type.String({ description: 'The key itself; shown only in this response' }) }),
]);

export const CreateApiKeyBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 60 }) },
  { additionalProperties: false },
);

export const SignedInSession = Type.Object({
  id: IdString,
  current: Type.Boolean({ description: 'The session making this request' }),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
  createdFrom: Type.Union([Type.String(), Type.Null()], { description: 'The address it signed in from' }),
  userAgent: Type.Union([Type.String(), Type.Null()], {
    description: 'The browser or client it signed in with',
  }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When it was last used; recorded at most once a minute, so it may lag by up to a minute',
  }),
  lastUsedFrom: Type.Union([Type.String(), Type.Null()], { description: 'The address of that last use' }),
});

export const ChangePasswordBody = Type.Object(
  { currentPassword: Type.String({ minLength: 1, maxLength: 128 }), newPassword: Password },
  { additionalProperties: false },
);

export const PasswordChanged = Type.Object({
  endedSessions: Type.Integer({ minimum: 0, description: 'How many other sessions were ended' }),
});

export function toUser(row: UserRow) {
  return {
    id: String(row.id),
    email: row.email,
    username: row.username,
    firstName: row.first_name,
    lastName: row.last_name,
    role: row.role,
    referralCode: row.referral_code,
    createdAt: iso(row.created_at),
  };
}
