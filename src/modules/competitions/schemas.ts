import { Type } from '@sinclair/typebox';
import { IdString } from '../../platform/http.js';
import { CHALLENGE_LIMITS } from './challenges.js';

const DateTime = Type.String({ format: 'date-time' });
const Named = Type.Object({ id: IdString, username: Type.String() });

export const ChallengeStatus = Type.Union([
  Type.Literal('open'),
  Type.Literal('accepted'),
  Type.Literal('settled'),
  Type.Literal('expired'),
]);

export const CreateChallengeBody = Type.Object(
  {
    eventSlug: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Play on this market; ends when it settles' }),
    ),
    startsAt: Type.Optional(Type.String({ format: 'date-time', description: 'Window start (default now)' })),
    endsAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'Window end; play on every market' }),
    ),
    stakeCents: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: CHALLENGE_LIMITS.maxStakeCents,
        default: 0,
        description: `Each side's stake, 0..${CHALLENGE_LIMITS.maxStakeCents} cents; the winner takes both`,
      }),
    ),
    opponentUsername: Type.Optional(
      Type.String({ pattern: '^[a-zA-Z0-9_]{3,30}$', description: 'Only this user may accept (notified)' }),
    ),
    expiresInHours: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: CHALLENGE_LIMITS.maxExpiresInHours,
        default: CHALLENGE_LIMITS.defaultExpiresInHours,
        description: 'How long the invite code can be accepted',
      }),
    ),
  },
  { additionalProperties: false },
);

export const Challenge = Type.Object({
  id: IdString,
  code: Type.String({
    description: 'Invite code: share it; the invitee accepts with it or registers with it',
  }),
  status: ChallengeStatus,
  event: Type.Union([Type.Object({ slug: Type.String(), title: Type.String() }), Type.Null()]),
  startsAt: Type.Union([DateTime, Type.Null()]),
  endsAt: Type.Union([DateTime, Type.Null()]),
  stakeCents: Type.Integer(),
  creator: Named,
  opponent: Type.Union([Named, Type.Null()]),
  expiresAt: DateTime,
  acceptedAt: Type.Union([DateTime, Type.Null()]),
  settledAt: Type.Union([DateTime, Type.Null()]),
  result: Type.Union([
    Type.Object({
      creatorPnlCents: Type.Integer(),
      opponentPnlCents: Type.Integer(),
      winner: Type.Union([Named, Type.Null()], { description: 'null for a draw' }),
    }),
    Type.Null(),
  ]),
  createdAt: DateTime,
});

export const CodeParams = Type.Object({ code: Type.String({ minLength: 1, maxLength: 32 }) });

export const TournamentSlug = Type.String({
  pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
  minLength: 1,
  maxLength: 80,
  description: 'Lower-case letters and digits separated by single dashes',
});

export const CreateTournamentBody = Type.Object(
  {
    slug: TournamentSlug,
    title: Type.String({ minLength: 1, maxLength: 140 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    startsAt: DateTime,
    endsAt: Type.String({ format: 'date-time', description: 'After startsAt and in the future' }),
    entryClosesAt: Type.Optional(Type.String({ format: 'date-time', description: 'Default: endsAt' })),
    eventSlugs: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 50 }),
    prizes: Type.Array(Type.Integer({ minimum: 1, maximum: 100_000_000 }), {
      maxItems: 50,
      description: 'Prize in cents for 1st, 2nd, ... place, paid from house bonus',
    }),
  },
  { additionalProperties: false },
);

export const UpdateTournamentBody = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 140 })),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    startsAt: Type.Optional(Type.String({ format: 'date-time', description: 'Only before the start' })),
    endsAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'After startsAt and in the future' }),
    ),
    entryClosesAt: Type.Optional(Type.String({ format: 'date-time', description: 'Not after endsAt' })),
    eventSlugs: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        minItems: 1,
        maxItems: 50,
        description: 'Only before the start',
      }),
    ),
    prizes: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: 100_000_000 }), {
        maxItems: 50,
        description: 'Before the start, any; once started, only higher or more prizes',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const TournamentStatus = Type.Union([
  Type.Literal('upcoming'),
  Type.Literal('active'),
  Type.Literal('scoring'),
  Type.Literal('finished'),
]);

export const Tournament = Type.Object({
  slug: Type.String(),
  title: Type.String(),
  description: Type.String(),
  status: TournamentStatus,
  startsAt: DateTime,
  endsAt: DateTime,
  entryClosesAt: DateTime,
  prizes: Type.Array(Type.Integer()),
  prizePoolCents: Type.Integer(),
  events: Type.Array(Type.Object({ slug: Type.String(), title: Type.String() })),
  participants: Type.Integer(),
});

export const LeaderboardEntry = Type.Object({
  rank: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'null: no trade yet' }),
  userId: IdString,
  username: Type.String(),
  trades: Type.Integer(),
  costCents: Type.Integer(),
  pnlCents: Type.Integer(),
  returnBps: Type.Integer({ description: 'pnlCents × 10000 ÷ costCents, rounded down' }),
  prizeCents: Type.Integer({ description: 'Prize at this rank (paid once the tournament is finished)' }),
});

export const TournamentDetail = Type.Composite([
  Tournament,
  Type.Object({
    scoring: Type.String(),
    joined: Type.Boolean({ description: 'Whether the caller has joined (false without a key)' }),
    leaderboard: Type.Array(LeaderboardEntry),
  }),
]);

export const TournamentsQuery = Type.Object({
  status: Type.Optional(
    Type.Union([Type.Literal('live'), Type.Literal('finished')], {
      default: 'live',
      description: 'live: running and upcoming (default); finished: prizes paid',
    }),
  ),
});

export const SlugParams = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 80 }) });
