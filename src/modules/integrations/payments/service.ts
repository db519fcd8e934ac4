import {
  FeatureDisabledError,
  type FieldProblem,
  ProviderNotConfiguredError,
  ValidationError,
} from '../../../platform/errors.js';
import type { FlagsService } from '../../flags/service.js';
import { methodsFor, PAYMENT_METHODS, type PaymentMode } from './gateways.js';

export interface DepositRequest {
  amountCents: number;
  methodId: string;
}

export interface WithdrawalRequest extends DepositRequest {
  upiId?: string | undefined;
  bankAccount?: { accountNumber: string; ifsc: string; holderName: string } | undefined;
}

const FLAG: Record<PaymentMode, { key: string; feature: string }> = {
  deposit: { key: 'deposits', feature: 'Depositing' },
  withdrawal: { key: 'withdrawals', feature: 'Withdrawing' },
};

const rupees = (cents: number) => `₹${(cents / 100).toLocaleString('en-IN')}`;

/**
 * Deposits and withdrawals, pre-launch: a request is checked exactly as it will be once money moves, then
 * refused while the feature's flag is off, and refused again while no payment provider exists. Nothing is
 * ever written to the ledger here.
 */
export class PaymentsService {
  constructor(private readonly flags: FlagsService) {}

  gateways(mode: PaymentMode) {
    return { data: methodsFor(mode) };
  }

  async deposit(request: DepositRequest): Promise<never> {
    this.check('deposit', request, []);
    return this.refuse('deposit');
  }

  async withdraw(request: WithdrawalRequest): Promise<never> {
    this.check('withdrawal', request, destinationProblems(request));
    return this.refuse('withdrawal');
  }

  private check(mode: PaymentMode, request: DepositRequest, problems: FieldProblem[]): void {
    const method = PAYMENT_METHODS.find((m) => m.id === request.methodId);
    const terms = method?.modes[mode];
    if (!method || !terms) {
      problems.unshift({
        field: 'body.methodId',
        message: `is not a ${mode} method; see GET /api/payment-gateways?mode=${mode}`,
      });
    } else if (!terms.enabled) {
      problems.unshift({ field: 'body.methodId', message: `${method.name} is not available for ${mode}s` });
    } else if (request.amountCents < terms.minCents || request.amountCents > terms.maxCents) {
      problems.unshift({
        field: 'body.amountCents',
        message:
          `must be between ${terms.minCents} and ${terms.maxCents} cents ` +
          `(${rupees(terms.minCents)} to ${rupees(terms.maxCents)}) for ${method.name}`,
      });
    }
    if (problems.length > 0) {
      throw new ValidationError(
        `Invalid ${mode}: ${problems.map((p) => `${p.field} ${p.message}`).join('; ')}`,
        problems,
      );
    }
  }

  private async refuse(mode: PaymentMode): Promise<never> {
    const flag = FLAG[mode];
    if (!(await this.flags.isEnabled(flag.key))) throw new FeatureDisabledError(flag.feature);
    throw new ProviderNotConfiguredError('payment');
  }
}

/** A payout names exactly the destination its method pays to. */
function destinationProblems(request: WithdrawalRequest): FieldProblem[] {
  const destination = PAYMENT_METHODS.find((m) => m.id === request.methodId)?.payoutDestination;
  const problems: FieldProblem[] = [];
  if (destination === 'upiId' && request.upiId === undefined) {
    problems.push({ field: 'body.upiId', message: 'is required for a UPI withdrawal' });
  }
  if (destination === 'bankAccount' && request.bankAccount === undefined) {
    problems.push({ field: 'body.bankAccount', message: 'is required for a bank withdrawal' });
  }
  if (destination !== 'upiId' && request.upiId !== undefined) {
    problems.push({ field: 'body.upiId', message: 'is only for UPI withdrawals' });
  }
  if (destination !== 'bankAccount' && request.bankAccount !== undefined) {
    problems.push({ field: 'body.bankAccount', message: 'is only for bank withdrawals' });
  }
  return problems;
}
