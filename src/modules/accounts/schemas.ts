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
  emailVerified: Type.Boolean({
    description:
      'Whether the address was proven by a link sent to it. While the service proves addresses (see ' +
      '`addressesVerified` in /api/flags), an unproven account may not create API keys or webhooks, nor stake ' +
      'credits against other traders (403 EMAIL_NOT_VERIFIED)',
  }),
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

const ScopeName = Type.Union(
  [Type.Literal('read'), Type.Literal('trade'), Type.Literal('cancel'), Type.Literal('account')],
  {
    description:
      '`read`: every read; `trade`: place and amend orders, convert, protections; `cancel`: cancel orders and ' +
      "cancel all, the dead man's switch; `account`: keys, webhooks, sessions, the security log, settings",
  },
);

const limit = (description: string, maximum = 1_000_000_000_000) =>
  Type.Union([Type.Integer({ minimum: 0, maximum }), Type.Null()], { description });

export const KeyLimitsBody = Type.Object(
  {
    maxOrderCents: Type.Optional(limit('The largest order: its limit price times its quantity, in cents')),
    maxOpenOrders: Type.Optional(
      limit('The most orders of the key resting at once, in every market', 1_000_000),
    ),
    maxPositionShares: Type.Optional(
      limit(
        'The most shares of one side of one option the account may hold through the key: its holding with ' +
          "every share the key's resting purchases there could still buy",
      ),
    ),
    maxDailyLossCents: Type.Optional(
      limit(
        "The most the key's trades of the day (UTC) could lose: purchases paid (fees included) less sales, " +
          'resting purchases counted at what they hold',
      ),
    ),
  },
  { additionalProperties: false },
);

const KeyLimitsView = Type.Object({
  maxOrderCents: Type.Union([Type.Integer(), Type.Null()]),
  maxOpenOrders: Type.Union([Type.Integer(), Type.Null()]),
  maxPositionShares: Type.Union([Type.Integer(), Type.Null()]),
  maxDailyLossCents: Type.Union([Type.Integer(), Type.Null()]),
});

const KeySettingsFields = {
  scopes: Type.Optional(
    Type.Array(ScopeName, {
      minItems: 1,
      maxItems: 4,
      uniqueItems: true,
      description: 'What the key may do; every scope when left out',
    }),
  ),
  allowedCidrs: Type.Optional(
    Type.Union([Type.Array(Type.String({ minLength: 2, maxLength: 50 }), { maxItems: 20 }), Type.Null()], {
      description:
        'Addresses or CIDRs the key may be used from (as the server sees the client: behind TRUST_PROXY, the ' +
        'forwarded address); null or empty: anywhere. From elsewhere: 403 KEY_ADDRESS_NOT_ALLOWED',
    }),
  ),
  expiresAt: Type.Optional(
    Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the key stops working (401 after); null: never',
    }),
  ),
  limits: Type.Optional(
    Type.Union([KeyLimitsBody, Type.Null()], {
      description: "Risk limits the order decision holds the key's orders to (409 when passed); null: none",
    }),
  ),
};

export const SecondFactorChallenge = Type.Object({
  secondFactorRequired: Type.Literal(true),
  challengeToken: Type.String({
    description: 'Answer it with a factor at POST /api/auth/login/second-factor; valid 5 minutes, 5 tries',
  }),
  expiresAt: Type.String({ format: 'date-time' }),
  factors: Type.Array(Type.Union([Type.Literal('totp'), Type.Literal('passkey')]), {
    description:
      'The factors the account has: `totp` (a code from the app, or a recovery code) and `passkey` (options at ' +
      'POST /api/auth/passkey/options with this challenge token)',
  }),
});

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
  scopes: Type.Array(ScopeName, {
    description: 'What the key may do (keys made before scopes have them all)',
  }),
  allowedCidrs: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: 'CIDRs the key may be used from; null: anywhere',
  }),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  limits: Type.Union([KeyLimitsView, Type.Null()], { description: 'Its risk limits; null: none' }),
});

export const CreatedApiKey = Type.Composite([
  ApiKey,
  Type.Object({ key: Type.String({ description: 'The key itself; shown only in this response' }) }),
]);

export const CreateApiKeyBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 60 }), ...KeySettingsFields },
  { additionalProperties: false },
);

export const UpdateApiKeyBody = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })), ...KeySettingsFields },
  { additionalProperties: false, minProperties: 1 },
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

/** The account's password as it stands, sent to confirm a change that could take the account over. */
export const CurrentPassword = Type.String({ minLength: 1, maxLength: 128 });

export const ChangePasswordBody = Type.Object(
  { currentPassword: CurrentPassword, newPassword: Password },
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
    emailVerified: row.email_verified_at !== null,
    referralCode: row.referral_code,
    createdAt: iso(row.created_at),
  };
}

const LinkToken = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'The token of the mailed link (after `#token=` in its address)',
});

export const VerifyEmailBody = Type.Object({ token: LinkToken }, { additionalProperties: false });

export const EmailVerified = Type.Object({ emailVerified: Type.Literal(true) });

export const MailAccepted = Type.Object({
  message: Type.String({ description: 'What happens next, in words' }),
});

export const ForgotPasswordBody = Type.Object({ email: Email }, { additionalProperties: false });

export const ResetPasswordBody = Type.Object(
  { token: LinkToken, password: Password },
  { additionalProperties: false },
);

export const PasswordReset = Type.Object({
  endedSessions: Type.Integer({ minimum: 0, description: 'How many sessions of the account were ended' }),
});

export const PasswordStrengthBody = Type.Object(
  {
    password: Type.String({ maxLength: 128 }),
    email: Type.Optional(Type.String({ maxLength: 254 })),
    username: Type.Optional(Type.String({ maxLength: 30 })),
    firstName: Type.Optional(Type.String({ maxLength: 60 })),
    lastName: Type.Optional(Type.String({ maxLength: 60 })),
  },
  { additionalProperties: false },
);

export const PasswordStrengthResult = Type.Object({
  score: Type.Integer({
    minimum: 0,
    maximum: 4,
    description: '0 (guessed at once) to 4 (very hard to guess)',
  }),
  acceptable: Type.Boolean({
    description: 'Whether registration or a reset would take it (a score of 3 or more)',
  }),
  warning: Type.Union([Type.String(), Type.Null()], { description: 'What makes it easy to guess' }),
  suggestions: Type.Array(Type.String(), { description: 'How to choose a better one' }),
});
