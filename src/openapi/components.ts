import type { TSchema } from '@sinclair/typebox';
import {
  ApiKey,
  CreatedApiKey,
  LoginBody,
  LoginResult,
  Me,
  RegisterBody,
  StreakBody,
  User,
} from '../modules/accounts/schemas.js';
import { FollowView, MirrorView } from '../modules/automation/schemas.js';
import {
  Challenge,
  LeaderboardEntry,
  Tournament,
  TournamentDetail,
} from '../modules/competitions/schemas.js';
import { Flag } from '../modules/flags/schemas.js';
import { BadgesBody, ReferralBody, XpBody } from '../modules/gamification/schemas.js';
import { NewsItem, NewsSources } from '../modules/integrations/news/schemas.js';
import {
  Candle,
  Candles,
  Fill,
  PortfolioHistory,
  Quote,
  Settlement,
  TapeTrade,
  Ticker,
} from '../modules/market-data/schemas.js';
import {
  DisputeView,
  EventDetail,
  EventListItem,
  EventSummary,
  ExchangeStatus,
  Leaderboard,
  OptionListItem,
  OptionView,
  OrderBookView,
  ServerTime,
  SetTradingStatusBody,
} from '../modules/markets/schemas.js';
import { Notification } from '../modules/notifications/routes.js';
import { FollowListItem } from '../modules/profile/follow/schemas.js';
import { Note } from '../modules/profile/notes/schemas.js';
import { PreferencesBody } from '../modules/profile/preferences/schemas.js';
import { WatchlistItem } from '../modules/profile/watchlist/schemas.js';
import {
  AdminReport,
  Author,
  Comment,
  Post,
  Profile,
  Report,
  Suggestion,
  TrendingUser,
} from '../modules/social/schemas.js';
import {
  AmendBody,
  AmendResult,
  BatchOrderResult,
  BatchOrdersResult,
  CancelAllBody,
  CancelAllResult,
  CancelOrderResult,
  CancelOrdersBody,
  CancelOrdersResult,
  HeartbeatBody,
  HeartbeatView,
  MarketCancelResult,
} from '../modules/trading/maker-schemas.js';
import {
  ConversionView,
  LimitOrder,
  LimitOrderBody,
  OrderListItem,
  OrderView,
  PlacedOrderView,
  Portfolio,
  PositionView,
  TradeBody,
  TradeListItem,
  TradeOrder,
  TradeView,
} from '../modules/trading/schemas.js';
import {
  AdminDelivery,
  Attempt,
  CreatedSubscription,
  CreateSubscriptionBody,
  Delivery,
  Subscription,
} from '../modules/webhooks/schemas.js';

/**
 * The named schemas of the contract: every resource a client handles has a name (and so a type in a generated
 * client), none of them a name a client's language already has (`Error`, `Event`, `Option`, `Comment`,
 * `Notification`, `Report` are built into browsers' TypeScript or into Rust). Routes keep using the TypeBox schemas inline; `useComponents` replaces every place of the document where
 * one of these appears by a `$ref` to it.
 */
const NAMED: Record<string, TSchema> = {
  Order: OrderView,
  PlacedOrder: PlacedOrderView,
  Trade: TradeView,
  Conversion: ConversionView,
  TradeListItem,
  OrderListItem,
  Position: PositionView,
  Portfolio,
  Candle,
  Candles,
  Ticker,
  TapeTrade,
  Fill,
  Settlement,
  PortfolioHistory,
  Quote,
  PlaceTradeRequest: TradeBody,
  PlaceTradeByOptionId: TradeOrder.byId,
  PlaceTradeByLabel: TradeOrder.byLabel,
  PlaceLimitOrderRequest: LimitOrderBody,
  PlaceLimitOrderByOptionId: LimitOrder.byId,
  PlaceLimitOrderByLabel: LimitOrder.byLabel,
  BatchOrdersResult,
  BatchOrderResult,
  CancelOrdersRequest: CancelOrdersBody,
  CancelOrdersResult,
  CancelOrderResult,
  CancelAllRequest: CancelAllBody,
  CancelAllResult,
  MarketCancelResult,
  AmendOrderRequest: AmendBody,
  AmendOrderResult: AmendResult,
  HeartbeatRequest: HeartbeatBody,
  Heartbeat: HeartbeatView,
  MarketOption: OptionView,
  OptionListItem,
  TradingStatus: ExchangeStatus,
  SetTradingStatusRequest: SetTradingStatusBody,
  ServerTime,
  EventSummary,
  EventListItem,
  MarketEvent: EventDetail,
  OrderBook: OrderBookView,
  Leaderboard,
  Dispute: DisputeView,
  User,
  Me,
  LoginResult,
  RegisterRequest: RegisterBody,
  LoginRequest: LoginBody,
  ApiKey,
  CreatedApiKey,
  Streak: StreakBody,
  FeedNotification: Notification,
  Badges: BadgesBody,
  Xp: XpBody,
  Referral: ReferralBody,
  Preferences: PreferencesBody,
  TradeNote: Note,
  WatchlistItem,
  FollowListItem,
  Author,
  Post,
  PostComment: Comment,
  ModerationReport: Report,
  AdminReport,
  MarketSuggestion: Suggestion,
  Profile,
  TrendingUser,
  Challenge,
  Tournament,
  TournamentDetail,
  TournamentLeaderboardEntry: LeaderboardEntry,
  Flag,
  NewsItem,
  NewsSources,
  CopyLeader: FollowView,
  CopyMirror: MirrorView,
  WebhookSubscription: Subscription,
  CreatedWebhookSubscription: CreatedSubscription,
  CreateWebhookRequest: CreateSubscriptionBody,
  WebhookDelivery: Delivery,
  AdminWebhookDelivery: AdminDelivery,
  WebhookAttempt: Attempt,
};

/** The named schemas as plain JSON, for the document's components. */
export const COMPONENT_SCHEMAS: Record<string, unknown> = Object.fromEntries(
  Object.entries(NAMED).map(([name, schema]) => [name, JSON.parse(JSON.stringify(schema))]),
);

type Json = Record<string, unknown>;

/**
 * JSON text with sorted keys: two schemas are the same when their canonical texts are. Examples are left out: the
 * document moves a request body's examples from its schema to its media type.
 */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Json)
      .filter(([k, v]) => v !== undefined && k !== 'examples')
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The sorted property names of an object schema (of each branch of a `oneOf`): a cheap first test before comparing
 * whole schemas.
 */
function shapeOf(value: unknown): string | null {
  const branches = (value as Json | null)?.oneOf;
  if (Array.isArray(branches)) return `oneOf(${branches.map(shapeOf).join('|')})`;
  const properties = (value as Json | null)?.properties;
  return properties && typeof properties === 'object' ? Object.keys(properties).sort().join(',') : null;
}

interface Names {
  byText: Map<string, string>;
  shapes: Set<string>;
}

function replaceNamed(value: unknown, names: Names, self: string | null): unknown {
  if (Array.isArray(value)) return value.map((item) => replaceNamed(item, names, null));
  if (value === null || typeof value !== 'object') return value;
  const shape = shapeOf(value);
  const name = shape !== null && names.shapes.has(shape) ? names.byText.get(canonical(value)) : undefined;
  if (name !== undefined && name !== self) return { $ref: `#/components/schemas/${name}` };
  return Object.fromEntries(
    Object.entries(value as Json).map(([key, item]) => [key, replaceNamed(item, names, null)]),
  );
}

/** The document with every occurrence of a named component schema replaced by a reference to it. */
export function useComponents(document: Json): Json {
  const components = (document.components ?? {}) as Json;
  const schemas = (components.schemas ?? {}) as Record<string, unknown>;
  const names: Names = { byText: new Map(), shapes: new Set() };
  const named = [...Object.keys(NAMED), ...Object.keys(schemas).filter((name) => !(name in NAMED))];
  for (const name of named) {
    const schema = schemas[name];
    const key = canonical(schema);
    const shape = shapeOf(schema);
    if (schema === undefined || shape === null || names.byText.has(key)) continue;
    names.byText.set(key, name);
    names.shapes.add(shape);
  }
  const namedSchemas = Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [name, replaceNamed(schema, names, name)]),
  );
  return {
    ...document,
    paths: replaceNamed(document.paths, names, null),
    webhooks: replaceNamed(document.webhooks, names, null),
    components: { ...components, schemas: namedSchemas },
  };
}
