import { Type } from '@sinclair/typebox';
import { IdString } from '../../platform/http.js';
import { TEXT_LIMITS } from './text.js';

const DateTime = Type.String({ format: 'date-time' });
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const Username = Type.String({
  pattern: '^[a-zA-Z0-9_]{3,30}$',
  description: '3..30 letters, digits, _',
});
export const Slug = Type.String({
  pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
  minLength: 1,
  maxLength: 80,
  description: 'Lower-case letters and digits separated by single dashes',
});

export const Author = Type.Object({
  id: IdString,
  username: Type.String(),
  displayName: Nullable(Type.String()),
  avatarUrl: Nullable(Type.String()),
});

export const Post = Type.Object({
  id: IdString,
  eventSlug: Type.String(),
  eventTitle: Type.String(),
  author: Author,
  text: Type.String({ description: 'Plain text exactly as written (trimmed); never HTML' }),
  likeCount: Type.Integer({ minimum: 0 }),
  commentCount: Type.Integer({ minimum: 0 }),
  likedByMe: Type.Boolean({ description: 'Whether the caller likes it (false without a key)' }),
  createdAt: DateTime,
});

export const CreatePostBody = Type.Object(
  {
    eventSlug: Type.String({ minLength: 1, maxLength: 200 }),
    text: Type.String({
      minLength: 1,
      maxLength: TEXT_LIMITS.post,
      description: `1..${TEXT_LIMITS.post} characters`,
    }),
  },
  { additionalProperties: false },
);

export const PostsQuery = Type.Object({
  eventSlug: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  username: Type.Optional(Username),
});

export const Comment = Type.Object({
  id: IdString,
  postId: IdString,
  author: Author,
  text: Type.String({ description: 'Plain text exactly as written (trimmed); never HTML' }),
  createdAt: DateTime,
});

export const CreateCommentBody = Type.Object(
  {
    text: Type.String({
      minLength: 1,
      maxLength: TEXT_LIMITS.comment,
      description: `1..${TEXT_LIMITS.comment} characters`,
    }),
  },
  { additionalProperties: false },
);

export const LikeResult = Type.Object({
  postId: IdString,
  liked: Type.Boolean({ description: 'The state after this request' }),
  likeCount: Type.Integer({ minimum: 0 }),
});

export const ReportTargetType = Type.Union([
  Type.Literal('POST'),
  Type.Literal('COMMENT'),
  Type.Literal('USER'),
]);
export const ReportStatus = Type.Union([
  Type.Literal('open'),
  Type.Literal('dismissed'),
  Type.Literal('hidden'),
  Type.Literal('suspended'),
]);

export const CreateReportBody = Type.Object(
  {
    targetType: ReportTargetType,
    targetId: IdString,
    reason: Type.String({
      minLength: 1,
      maxLength: TEXT_LIMITS.reportReason,
      description: `1..${TEXT_LIMITS.reportReason} characters`,
    }),
  },
  { additionalProperties: false },
);

export const Report = Type.Object({
  id: IdString,
  targetType: ReportTargetType,
  targetId: IdString,
  reason: Type.String(),
  status: ReportStatus,
  createdAt: DateTime,
});

export const AdminReport = Type.Composite([
  Report,
  Type.Object({
    reporter: Type.Object({ id: IdString, username: Type.String() }),
    target: Type.Object({
      userId: Type.Union([IdString, Type.Null()], { description: 'The reported user, or the author' }),
      username: Nullable(Type.String()),
      text: Nullable(Type.String({ description: 'The reported post or comment text' })),
      removed: Type.Boolean({ description: 'Content hidden or deleted, or user suspended' }),
    }),
    resolutionNote: Nullable(Type.String()),
    resolvedAt: Nullable(DateTime),
  }),
]);

export const ReportsQuery = Type.Object({
  status: Type.Optional(
    Type.Union([Type.Literal('open'), Type.Literal('resolved'), Type.Literal('all')], { default: 'open' }),
  ),
});

export const ResolveReportBody = Type.Object(
  {
    action: Type.Union([Type.Literal('dismiss'), Type.Literal('hide'), Type.Literal('suspend')]),
    note: Type.Optional(Type.String({ maxLength: TEXT_LIMITS.moderationNote })),
  },
  { additionalProperties: false },
);

export const SuggestionStatus = Type.Union([
  Type.Literal('pending'),
  Type.Literal('approved'),
  Type.Literal('rejected'),
]);

export const CreateSuggestionBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: TEXT_LIMITS.suggestionTitle }),
    description: Type.Optional(Type.String({ maxLength: TEXT_LIMITS.suggestionDescription })),
    category: Type.String({ minLength: 1, maxLength: TEXT_LIMITS.suggestionCategory }),
    options: Type.Array(Type.String({ minLength: 1, maxLength: TEXT_LIMITS.suggestionOption }), {
      minItems: 1,
      maxItems: 10,
      description: 'Option labels, 1..10 different ones (e.g. ["Yes"] or the candidates)',
    }),
    resolutionSource: Type.Optional(Type.String({ maxLength: TEXT_LIMITS.resolutionSource })),
    closesAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'Suggested close, in the future' }),
    ),
  },
  { additionalProperties: false },
);

export const Suggestion = Type.Object({
  id: IdString,
  title: Type.String(),
  description: Type.String(),
  category: Type.String(),
  options: Type.Array(Type.String()),
  resolutionSource: Nullable(Type.String()),
  closesAt: Nullable(DateTime),
  status: SuggestionStatus,
  rejectionReason: Nullable(Type.String()),
  eventId: Type.Union([IdString, Type.Null()], { description: 'The event made from it, once approved' }),
  eventSlug: Nullable(Type.String({ description: 'The draft event made from it, once approved' })),
  eventStatus: Type.Union(
    [
      Type.Literal('draft'),
      Type.Literal('open'),
      Type.Literal('closed'),
      Type.Literal('resolved'),
      Type.Literal('settled'),
      Type.Null(),
    ],
    { description: 'That event’s status now: `draft` until an admin opens it' },
  ),
  suggestedBy: Type.Object({ id: IdString, username: Type.String() }),
  reviewedAt: Nullable(DateTime),
  createdAt: DateTime,
});

export const SuggestionsQuery = Type.Object({ status: Type.Optional(SuggestionStatus) });

export const ApproveSuggestionBody = Type.Object(
  {
    closesAt: Type.Optional(Type.String({ format: 'date-time' })),
    slug: Type.Optional(Slug),
  },
  { additionalProperties: false },
);

export const RejectSuggestionBody = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: TEXT_LIMITS.rejectionReason }) },
  { additionalProperties: false },
);

export const ProfileStats = Type.Object({
  trades: Type.Integer(),
  volumeCents: Type.Integer({ description: 'Sum of quantity × price over all trades' }),
  realizedPnlCents: Type.Integer(),
  settledPositions: Type.Integer({ description: 'Positions (option and side) in settled YES/NO options' }),
  winningPositions: Type.Integer(),
  winRateBps: Type.Union([Type.Integer({ minimum: 0, maximum: 10000 }), Type.Null()], {
    description: 'winningPositions / settledPositions in basis points; null before any settles',
  }),
  currentStreak: Type.Integer({ description: 'Consecutive winning settled positions, newest first' }),
});

export const Profile = Type.Object({
  id: IdString,
  username: Type.String(),
  displayName: Nullable(Type.String()),
  bio: Type.String({ description: 'Empty when the user wrote none' }),
  avatarUrl: Nullable(Type.String()),
  level: Type.Integer({ minimum: 1 }),
  badges: Type.Array(
    Type.Object({ id: Type.String(), name: Type.String(), description: Type.String(), earnedAt: DateTime }),
  ),
  followers: Type.Integer(),
  following: Type.Integer(),
  joinedAt: DateTime,
  stats: ProfileStats,
});

export const TrendingUser = Type.Object({
  rank: Type.Integer({ minimum: 1 }),
  userId: IdString,
  username: Type.String(),
  displayName: Nullable(Type.String()),
  avatarUrl: Nullable(Type.String()),
  trades: Type.Integer({ description: 'Trades in the window' }),
  volumeCents: Type.Integer(),
  profitCents: Type.Integer({ description: 'Profit of the window’s trades, marked to market' }),
  score: Type.Integer(),
});

export const TrendingPage = Type.Object({
  data: Type.Array(TrendingUser),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
  windowDays: Type.Integer(),
  from: DateTime,
  to: DateTime,
});

export const UsernameParams = Type.Object({ username: Username });
