import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errors } from '../../../platform/http.js';
import type { PaymentsService } from './service.js';

const tags = ['Payments'];
const security = [{ bearerAuth: [] }];

const AmountCents = Type.Integer({
  minimum: 1,
  maximum: 1_000_000_000_000,
  description: 'Amount in cents (paise)',
});
const MethodId = Type.String({
  minLength: 1,
  maxLength: 40,
  description: 'A method id from GET /api/payment-gateways',
});

const DepositBody = Type.Object(
  { amountCents: AmountCents, methodId: MethodId },
  { additionalProperties: false },
);

const WithdrawalBody = Type.Object(
  {
    amountCents: AmountCents,
    methodId: MethodId,
    upiId: Type.Optional(
      Type.String({
        pattern: '^[a-zA-Z0-9._-]{2,256}@[a-zA-Z][a-zA-Z0-9]{1,63}$',
        description: 'The UPI id paid to (method `upi`), e.g. name@okbank',
      }),
    ),
    bankAccount: Type.Optional(
      Type.Object(
        {
          accountNumber: Type.String({ pattern: '^[0-9]{9,18}$' }),
          ifsc: Type.String({ pattern: '^[A-Z]{4}0[A-Z0-9]{6}$', description: 'e.g. HDFC0001234' }),
          holderName: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }),
        },
        { additionalProperties: false, description: 'The bank account paid to (method `netbanking`)' },
      ),
    ),
  },
  { additionalProperties: false },
);

const Gateway = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.Union([
    Type.Literal('UPI'),
    Type.Literal('CARD'),
    Type.Literal('NET_BANKING'),
    Type.Literal('WALLET'),
  ]),
  minCents: Type.Integer(),
  maxCents: Type.Integer(),
  enabled: Type.Boolean({ description: 'Whether the method accepts requests in this mode' }),
  feeBps: Type.Integer({ description: 'Fee in basis points of the amount' }),
});

const Mode = Type.Union([Type.Literal('deposit'), Type.Literal('withdrawal')], { default: 'deposit' });

const refusals =
  'Checked as a real request would be: 400 VALIDATION_FAILED naming the field for an amount outside the ' +
  "method's limits, an unknown method, or a method not enabled for this mode. Then, pre-launch, 503 " +
  'FEATURE_DISABLED while the flag is off, and 503 PROVIDER_NOT_CONFIGURED while no payment provider is ' +
  'integrated (even with the flag on). No money moves and nothing is recorded.';

export const paymentsRoutes: FastifyPluginAsyncTypebox<{ payments: PaymentsService }> = async (
  app,
  { payments },
) => {
  app.get(
    '/api/payment-gateways',
    {
      schema: {
        tags,
        summary: 'Payment methods for deposits or withdrawals',
        description:
          'Every method supporting the mode (default `deposit`), with its limits in cents and whether it is ' +
          'enabled. The `deposits` and `withdrawals` flags switch the features as a whole.',
        querystring: Type.Object({ mode: Type.Optional(Mode) }),
        response: { 200: Type.Object({ data: Type.Array(Gateway) }), ...errors(400, 429) },
      },
    },
    async (request) => payments.gateways(request.query.mode ?? 'deposit'),
  );

  app.post(
    '/api/deposits',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Deposit money (disabled before launch)',
        description: `Behind the \`deposits\` flag. ${refusals}`,
        body: DepositBody,
        response: errors(400, 401, 403, 429, 503),
      },
    },
    async (request) => payments.deposit(request.body),
  );

  app.post(
    '/api/withdrawals',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Withdraw money (disabled before launch)',
        description:
          'Behind the `withdrawals` flag. A UPI withdrawal names `upiId`, a bank one `bankAccount`. ' +
          refusals,
        body: WithdrawalBody,
        response: errors(400, 401, 403, 429, 503),
      },
    },
    async (request) => payments.withdraw(request.body),
  );
};
