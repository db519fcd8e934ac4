/** Shapes of the operators' console and of the trader screens for reports, suggestions and copy trading. */

export interface SignedInSession {
  id: string;
  current: boolean;
  createdAt: string;
  expiresAt: string;
  createdFrom: string | null;
  userAgent: string | null;
  lastUsedAt: string | null;
  lastUsedFrom: string | null;
}

export interface WebhookAttempt {
  attemptedAt: string;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  nextAttemptAt: string | null;
}

export interface WebhookDelivery {
  id: string;
  eventId: string;
  type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attemptCount: number;
  nextAttemptAt: string | null;
  createdAt: string;
  completedAt: string | null;
  attempts: WebhookAttempt[];
}

export type Outcome = 'YES' | 'NO' | 'VOID';

export interface SettlementPreview {
  eventId: string;
  holders: number;
  payoutCents: number;
  housePayoutCents: number;
  disputePending: boolean;
  options: {
    optionId: string;
    label: string;
    outcome: Outcome;
    holders: number;
    payoutCents: number;
    housePayoutCents: number;
  }[];
}

export interface Dispute {
  id: string;
  eventId: string;
  eventSlug: string;
  userId: string;
  username?: string;
  reason: string;
  evidenceUrl: string | null;
  status: 'pending' | 'upheld' | 'rejected';
  decisionNote: string | null;
  createdAt: string;
  decidedAt: string | null;
}

export type ReportTarget = 'POST' | 'COMMENT' | 'USER';

export interface AdminReport {
  id: string;
  targetType: ReportTarget;
  targetId: string;
  reason: string;
  status: 'open' | 'dismissed' | 'hidden' | 'suspended';
  createdAt: string;
  reporter: { id: string; username: string };
  target: { userId: string | null; username: string | null; text: string | null; removed: boolean };
  resolutionNote: string | null;
  resolvedAt: string | null;
}

export interface Suggestion {
  id: string;
  title: string;
  description: string;
  category: string;
  options: string[];
  resolutionSource: string | null;
  closesAt: string | null;
  status: 'pending' | 'approved' | 'rejected';
  rejectionReason: string | null;
  eventSlug: string | null;
  suggestedBy: { id: string; username: string };
  reviewedAt: string | null;
  createdAt: string;
}

export interface Flag {
  key: string;
  enabled: boolean;
  effective: boolean;
  blockedBy: string | null;
  description: string;
  updatedAt: string;
  updatedBy: string | null;
}

export interface AuditResult {
  ok: boolean;
  checkedAt: string;
  invariants: { invariant: string; ok: boolean; violations: string[] }[];
}

export type Sizing =
  | { mode: 'fixed'; quantity: number }
  | { mode: 'fraction'; fraction: number; fractionBps: number };

export interface CopyFollow {
  leaderId: string;
  leaderUsername: string;
  sizing: Sizing;
  maxQuantityPerTrade: number;
  dailyLimitCents: number;
  usedTodayCents: number;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface Mirror {
  id: string;
  leaderId: string;
  leaderUsername: string;
  leaderOrderId: string;
  optionId: string;
  eventSlug: string;
  optionLabel: string;
  side: 'YES' | 'NO';
  action: 'BUY' | 'SELL';
  leaderQuantity: number;
  worstPriceCents: number;
  status: 'pending' | 'processing' | 'placed' | 'skipped';
  quantity: number | null;
  filledQuantity: number;
  notionalCents: number;
  orderId: string | null;
  reason: string | null;
  createdAt: string;
  processedAt: string | null;
}
