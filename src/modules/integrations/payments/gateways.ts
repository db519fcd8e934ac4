/**
 * The payment methods the product will offer, with their limits in cents (paise). They are code, not data:
 * a new method needs a provider integration anyway.
 */

export type PaymentMode = 'deposit' | 'withdrawal';
export type MethodType = 'UPI' | 'CARD' | 'NET_BANKING' | 'WALLET';

export interface MethodTerms {
  minCents: number;
  maxCents: number;
  feeBps: number;
  enabled: boolean;
}

export interface PaymentMethod {
  id: string;
  name: string;
  type: MethodType;
  /** The modes the method supports at all; a method may list a mode that is switched off. */
  modes: Partial<Record<PaymentMode, MethodTerms>>;
  /** What a withdrawal to this method must name. */
  payoutDestination?: 'upiId' | 'bankAccount';
}

export const PAYMENT_METHODS: readonly PaymentMethod[] = [
  {
    id: 'upi',
    name: 'UPI',
    type: 'UPI',
    modes: {
      deposit: { minCents: 10_000, maxCents: 10_000_000, feeBps: 0, enabled: true },
      withdrawal: { minCents: 20_000, maxCents: 10_000_000, feeBps: 0, enabled: true },
    },
    payoutDestination: 'upiId',
  },
  {
    id: 'card',
    name: 'Debit or credit card',
    type: 'CARD',
    modes: {
      deposit: { minCents: 10_000, maxCents: 20_000_000, feeBps: 200, enabled: true },
      withdrawal: { minCents: 20_000, maxCents: 20_000_000, feeBps: 0, enabled: false },
    },
  },
  {
    id: 'netbanking',
    name: 'Net banking',
    type: 'NET_BANKING',
    modes: {
      deposit: { minCents: 50_000, maxCents: 50_000_000, feeBps: 0, enabled: true },
      withdrawal: { minCents: 50_000, maxCents: 50_000_000, feeBps: 0, enabled: true },
    },
    payoutDestination: 'bankAccount',
  },
  {
    id: 'wallet',
    name: 'Wallets (Paytm, PhonePe, Amazon Pay)',
    type: 'WALLET',
    modes: { deposit: { minCents: 10_000, maxCents: 1_000_000, feeBps: 100, enabled: false } },
  },
];

export function methodsFor(mode: PaymentMode) {
  return PAYMENT_METHODS.flatMap((method) => {
    const terms = method.modes[mode];
    return terms ? [{ id: method.id, name: method.name, type: method.type, ...terms }] : [];
  });
}
