/** The shapes the public API answers with (see /api/openapi.json). Money is integer cents. */

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export type Side = 'YES' | 'NO';
export type Action = 'BUY' | 'SELL';
export type EventStatus = 'draft' | 'open' | 'closed' | 'resolved' | 'settled';
export type Resolution = 'YES' | 'NO' | 'VOID' | null;

export interface User {
  id: string;
  email: string;
  username: string;
  firstName: string | null;
  lastName: string | null;
  role: 'user' | 'admin';
  referralCode: string;
  createdAt: string;
}

export interface Me extends User {
  balance: { cashCents: number; reservedCents: number };
}

export interface Streak {
  current: number;
  longest: number;
  lastDay: string | null;
  awardedToday: boolean;
  nextBonus: { day: number; bonusCents: number; availableOn: 'today' | 'tomorrow' };
}

export interface Session {
  token: string;
  expiresAt: string;
  user: User;
  streak?: Streak & { awardedCents: number };
}

export interface OptionSummary {
  id: string;
  label: string;
  yesPriceCents: number;
  noPriceCents: number;
  probabilityBps: number;
  lastYesPriceCents: number | null;
  volumeShares: number;
  volumeCents: number;
  houseLiquidityCents: number;
  resolution: Resolution;
}

export interface MarketSummary {
  id: string;
  slug: string;
  title: string;
  description: string;
  category: string;
  featured: boolean;
  status: EventStatus;
  resolutionSource: string | null;
  closesAt: string;
  createdAt: string;
  options: OptionSummary[];
}

export interface PricePoint {
  t: string;
  yesPriceCents: number;
}

export interface OptionDetail extends OptionSummary {
  bestBidCents: number | null;
  bestAskCents: number | null;
  priceHistory: PricePoint[];
}

export interface MarketDetail extends Omit<MarketSummary, 'options'> {
  openedAt: string | null;
  closedAt: string | null;
  resolvedAt: string | null;
  settledAt: string | null;
  disputeWindowEndsAt: string | null;
  range: string;
  options: OptionDetail[];
}

export interface BookLevel {
  priceCents: number;
  quantity: number;
  orders: number;
  houseQuantity: number;
}

export interface OrderBook {
  optionId: string;
  eventSlug: string;
  optionLabel: string;
  lastYesPriceCents: number | null;
  bookVersion: number;
  yes: { bids: BookLevel[]; asks: BookLevel[] };
  no: { bids: BookLevel[]; asks: BookLevel[] };
}

export interface Trade {
  id: string;
  orderId: string;
  optionId: string;
  eventSlug: string;
  optionLabel: string;
  side: Side;
  action: Action;
  quantity: number;
  priceCents: number;
  feeCents: number;
  liquidity: 'maker' | 'taker';
  orderKind: 'market' | 'limit';
  createdAt: string;
}

export type OrderStatus = 'open' | 'partially_filled' | 'filled' | 'cancelled' | 'expired';

export interface Order {
  id: string;
  optionId: string;
  eventSlug: string;
  optionLabel: string;
  kind: 'market' | 'limit';
  side: Side;
  action: Action;
  quantity: number;
  priceCents: number;
  filledQuantity: number;
  remainingQuantity: number;
  status: OrderStatus;
  cancelReason: string | null;
  reservedCents: number;
  clientOrderId: string | null;
  expiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface OrderResult extends Order {
  averagePriceCents: number | null;
  feeCents: number;
  trades: Trade[];
  selfTradeCancelledOrderIds: string[];
}

export interface Position {
  id: string;
  optionId: string;
  eventSlug: string;
  eventTitle: string;
  optionLabel: string;
  side: Side;
  quantity: number;
  reservedQuantity: number;
  avgPriceCents: number;
  costCents: number;
  markPriceCents: number | null;
  valueCents: number;
  unrealizedPnlCents: number;
  realizedPnlCents: number;
  stopLossProbBps: number | null;
  takeProfitProbBps: number | null;
}

export interface Portfolio {
  data: Position[];
  summary: {
    cashCents: number;
    reservedCents: number;
    positionsValueCents: number;
    totalValueCents: number;
    realizedPnlCents: number;
    unrealizedPnlCents: number;
    openOrders: number;
  };
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface Webhook {
  id: string;
  url: string;
  description: string | null;
  events: string[] | null;
  createdAt: string;
}

export interface CreatedWebhook extends Webhook {
  secret: string;
}

export interface Preferences {
  displayName: string | null;
  bio: string;
  darkMode: boolean;
  timezone: string | null;
  notifications: { trades: boolean; social: boolean; competitions: boolean; marketing: boolean };
  avatarUrl: string | null;
  updatedAt: string | null;
}

export interface Notification {
  id: string;
  type: string;
  title: string;
  body: string;
  read: boolean;
  createdAt: string;
}

export interface NotificationFeed extends Page<Notification> {
  unreadCount: number;
}

export interface Author {
  id: string;
  username: string;
  displayName: string | null;
  avatarUrl: string | null;
}

export interface Post {
  id: string;
  eventSlug: string;
  eventTitle: string;
  author: Author;
  text: string;
  likeCount: number;
  commentCount: number;
  likedByMe: boolean;
  createdAt: string;
}

export interface Comment {
  id: string;
  postId: string;
  author: Author;
  text: string;
  createdAt: string;
}

export interface NewsItem {
  id?: string;
  title: string;
  source: string;
  url: string;
  publishedAt: string | null;
  origin: 'feed' | 'api' | 'admin';
}

export interface News {
  items: NewsItem[];
  summary: string | null;
}

export interface Sponsor {
  name: string;
  logoUrl: string;
  linkUrl: string;
  disclosure: string;
}

export interface Ranked {
  rank: number;
  userId: string;
  username: string;
  value: number;
}

export interface Leaderboard {
  profit: Ranked[];
  volume: Ranked[];
  predictions: Ranked[];
}

export type TournamentStatus = 'upcoming' | 'active' | 'scoring' | 'finished';

export interface Tournament {
  slug: string;
  title: string;
  description: string;
  status: TournamentStatus;
  startsAt: string;
  endsAt: string;
  entryClosesAt: string;
  prizes: number[];
  prizePoolCents: number;
  events: { slug: string; title: string }[];
  participants: number;
}

export interface TournamentDetail extends Tournament {
  scoring: string;
  joined: boolean;
  leaderboard: {
    rank: number | null;
    userId: string;
    username: string;
    trades: number;
    costCents: number;
    pnlCents: number;
    returnBps: number;
    prizeCents: number;
  }[];
}

export interface Challenge {
  id: string;
  code: string;
  status: 'open' | 'accepted' | 'settled' | 'expired';
  event: { slug: string; title: string } | null;
  startsAt: string | null;
  endsAt: string | null;
  stakeCents: number;
  creator: { id: string; username: string };
  opponent: { id: string; username: string } | null;
  expiresAt: string;
  acceptedAt: string | null;
  settledAt: string | null;
  result: {
    creatorPnlCents: number;
    opponentPnlCents: number;
    winner: { id: string; username: string } | null;
  } | null;
  createdAt: string;
}

export interface PublicProfile {
  id: string;
  username: string;
  displayName: string | null;
  bio: string;
  avatarUrl: string | null;
  level: number;
  badges: { id: string; name: string; description: string; earnedAt: string }[];
  followers: number;
  following: number;
  joinedAt: string;
  stats: {
    trades: number;
    volumeCents: number;
    realizedPnlCents: number;
    settledPositions: number;
    winningPositions: number;
    winRateBps: number | null;
    currentStreak: number;
  };
}

export interface Xp {
  xp: number;
  level: number;
  levelXp: number;
  nextLevelXp: number;
  progressBps: number;
  breakdown: {
    trades: number;
    volume: number;
    streakDays: number;
    correctPredictions: number;
    badges: number;
  };
}

export interface Badges {
  earned: { id: string; name: string; description: string; criteria: string; earnedAt: string }[];
  locked: {
    id: string;
    name: string;
    description: string;
    criteria: string;
    progress: { current: number; target: number };
  }[];
}

export interface Referral {
  code: string;
  link: string;
  referredCount: number;
  rewardedCount: number;
  totalEarnedCents: number;
  rewardCents: number;
}
