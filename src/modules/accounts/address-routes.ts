import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentUser } from '../../platform/auth.js';
import { errors } from '../../platform/http.js';
import type { EmailLinks } from './email-links.js';
import { signInFrom } from './routes.js';
import {
  EmailVerified,
  ForgotPasswordBody,
  MailAccepted,
  PasswordReset,
  PasswordStrengthBody,
  PasswordStrengthResult,
  ResetPasswordBody,
  VerifyEmailBody,
} from './schemas.js';
import type { AccountsService } from './service.js';

const tags = ['Account'];
const security = [{ bearerAuth: [] }];

/** Proving addresses and resetting passwords by mail, and judging a password before it is chosen. */
export const addressRoutes: FastifyPluginAsyncTypebox<{
  accounts: AccountsService;
  links: EmailLinks;
}> = async (app, { accounts, links }) => {
  app.post(
    '/api/auth/verify-email',
    {
      schema: {
        tags,
        summary: 'Prove an address with the link mailed to it',
        description:
          'The token is the part after `#token=` of the mailed link. A link works once, for a day, and only ' +
          'while the account still has the address it went to; otherwise 400 `LINK_INVALID`.',
        body: VerifyEmailBody,
        response: { 200: EmailVerified, ...errors(400, 429) },
      },
    },
    async (request) => {
      await links.verify(request.body.token);
      return { emailVerified: true as const };
    },
  );

  app.post(
    '/api/me/email/verification',
    {
      onRequest: app.authenticate,
      schema: {
        tags,
        security,
        summary: 'Mail the link proving the address again',
        description:
          'One link a minute at most (a request within the minute is answered 202 and sends nothing). Proven ' +
          'already: 409 `EMAIL_ALREADY_VERIFIED`; no mail configured: 503 `PROVIDER_NOT_CONFIGURED`.',
        response: { 202: MailAccepted, ...errors(401, 409, 429, 503) },
      },
    },
    async (request, reply) => {
      await links.resendVerification(currentUser(request).userId);
      return reply.status(202).send({ message: 'A new link is on its way to your address.' });
    },
  );

  app.post(
    '/api/auth/forgot-password',
    {
      schema: {
        tags,
        summary: 'Mail a link to choose a new password',
        description:
          'Always 202, whether or not the address has an account, and at once (the mail goes out after the ' +
          'answer): nothing here tells who is registered. One link a minute at most per account; a link works ' +
          'once, for an hour. No mail configured: 503 `PROVIDER_NOT_CONFIGURED`.',
        body: ForgotPasswordBody,
        response: { 202: MailAccepted, ...errors(400, 429, 503) },
      },
    },
    async (request, reply) => {
      links.requestReset(request.body.email);
      return reply
        .status(202)
        .send({ message: 'If this address has an account, a link to choose a new password is on its way.' });
    },
  );

  app.post(
    '/api/auth/reset-password',
    {
      schema: {
        tags,
        summary: 'Choose a new password with the mailed link',
        description:
          'Every session of the account ends (API keys stay), the address counts as proven, and failed logins ' +
          'counted against the account are forgotten. Used, expired or unknown link: 400 `LINK_INVALID`; a ' +
          'password easy to guess: 400 `WEAK_PASSWORD` (the link still works).',
        body: ResetPasswordBody,
        response: { 200: PasswordReset, ...errors(400, 429) },
      },
    },
    async (request) => {
      const { token, password } = request.body;
      return links.resetPassword(
        token,
        password,
        (candidate, user) => accounts.requireStrongPassword(candidate, user),
        signInFrom(request),
      );
    },
  );

  app.post(
    '/api/auth/password-strength',
    {
      schema: {
        tags,
        summary: 'How hard a password is to guess',
        description:
          'For the registration and reset forms: the same judgement as registration makes, with the email and ' +
          'names given counting as guessed. Nothing is stored or logged.',
        body: PasswordStrengthBody,
        response: { 200: PasswordStrengthResult, ...errors(400, 429) },
      },
    },
    async (request) => {
      const { password, ...details } = request.body;
      return accounts.passwordStrength(password, details);
    },
  );
};
