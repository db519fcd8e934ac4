import { randomBytes } from 'node:crypto';
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { isoBase64URL } from '@simplewebauthn/server/helpers';
import type { Kysely } from 'kysely';
import type { DB, UserRow } from '../../platform/db/schema.js';
import { isUniqueViolation } from '../../platform/db/types.js';
import { AppError, ConflictError, NotFoundError } from '../../platform/errors.js';
import type { PasskeyRepository, PasskeyRow } from './passkey-repository.js';

/** How long the options of a registration or a sign-in may be answered. */
const CHALLENGE_TTL_MS = 5 * 60_000;
/** The most passkeys an account keeps: a phone, a laptop, a security key or two, with room to spare. */
export const MAX_PASSKEYS = 10;
/** ES256, EdDSA and RS256: what platform authenticators and security keys make. */
const ALGORITHMS = [-7, -8, -257];

/** Where passkeys are valid: the relying party's id (the site's host name) and the origin pages run on. */
export interface PasskeySettings {
  rpName: string;
  rpId: string;
  origin: string;
}

export class InvalidPasskeyError extends AppError {
  constructor() {
    super(400, 'INVALID_PASSKEY', 'The passkey could not be verified: ask for new options and try again');
  }
}

/**
 * Passkeys (WebAuthn through @simplewebauthn/server): registration with attestation `none`, and assertions that
 * prove the account for a login's second step, a fresh factor, or a sign-in without a password. Every challenge
 * is stored and spent once, so any instance checks any answer and none is accepted twice.
 */
export class PasskeyService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly passkeys: PasskeyRepository,
    private readonly settings: PasskeySettings,
  ) {}

  list(userId: number): Promise<PasskeyRow[]> {
    return this.passkeys.list(this.db, userId);
  }

  /** The options for navigator.credentials.create, the account's passkeys excluded. */
  async registrationOptions(user: UserRow) {
    const existing = await this.passkeys.list(this.db, user.id);
    if (existing.length >= MAX_PASSKEYS)
      throw new ConflictError('TOO_MANY_PASSKEYS', `At most ${MAX_PASSKEYS} passkeys per account`);
    const userHandle = existing[0]?.user_handle ?? isoBase64URL.fromBuffer(randomBytes(32));
    const options = await generateRegistrationOptions({
      rpName: this.settings.rpName,
      rpID: this.settings.rpId,
      userName: user.email,
      userDisplayName: user.username,
      userID: isoBase64URL.toBuffer(userHandle),
      attestationType: 'none',
      excludeCredentials: existing.map((key) => ({ id: key.credential_id, transports: key.transports })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
      supportedAlgorithmIDs: ALGORITHMS,
    });
    await this.passkeys.insertChallenge(this.db, {
      userId: user.id,
      purpose: 'register',
      value: options.challenge,
      userHandle,
      expiresAt: new Date(Date.now() + CHALLENGE_TTL_MS),
    });
    return options;
  }

  /** Verifies the authenticator's answer to a registration's options and stores the new passkey. */
  async register(userId: number, name: string, response: RegistrationResponseJSON): Promise<PasskeyRow> {
    let userHandle: string | null = null;
    const result = await verifyRegistrationResponse({
      response,
      expectedChallenge: async (challenge) => {
        const spent = await this.passkeys.spendChallenge(this.db, challenge, 'register', userId);
        userHandle = spent?.user_handle ?? null;
        return userHandle !== null;
      },
      expectedOrigin: this.settings.origin,
      expectedRPID: this.settings.rpId,
      requireUserVerification: false,
      supportedAlgorithmIDs: ALGORITHMS,
    }).catch(() => null);
    if (!result?.verified || userHandle === null) throw new InvalidPasskeyError();
    const { credential, credentialBackedUp } = result.registrationInfo;
    try {
      await this.passkeys.insert(this.db, {
        userId,
        name,
        credentialId: credential.id,
        publicKey: isoBase64URL.fromBuffer(credential.publicKey),
        counter: credential.counter,
        transports: credential.transports ?? response.response.transports ?? [],
        userHandle,
        backedUp: credentialBackedUp,
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw new ConflictError('PASSKEY_EXISTS', 'This passkey is registered already');
      throw error;
    }
    const created = await this.passkeys.findByCredentialId(this.db, credential.id);
    if (!created) throw new NotFoundError('Passkey');
    return created;
  }

  /**
   * The options for navigator.credentials.get: the account's passkeys for a second step or a fresh factor, or
   * none (any passkey the authenticator holds for this site, with user verification) for a sign-in without a
   * password. 404 when the account has no passkey.
   */
  async authenticationOptions(userId: number | null) {
    const keys = userId === null ? [] : await this.passkeys.list(this.db, userId);
    if (userId !== null && keys.length === 0) throw new NotFoundError('Passkey');
    const options = await generateAuthenticationOptions({
      rpID: this.settings.rpId,
      allowCredentials: keys.map((key) => ({ id: key.credential_id, transports: key.transports })),
      userVerification: userId === null ? 'required' : 'preferred',
    });
    await this.passkeys.insertChallenge(this.db, {
      userId,
      purpose: 'authenticate',
      value: options.challenge,
      expiresAt: new Date(Date.now() + CHALLENGE_TTL_MS),
    });
    return options;
  }

  /**
   * The account an assertion proves, or null: of `userId` when given (a second step, a fresh factor), else of the
   * passkey's own account, which then must also say the person was verified (a sign-in without a password stands
   * for both factors). The signature counter must move on, and a concurrent use of the same answer loses.
   */
  async prove(response: AuthenticationResponseJSON, userId: number | null): Promise<number | null> {
    const key = await this.passkeys.findByCredentialId(this.db, response.id);
    if (!key || (userId !== null && key.user_id !== userId)) return null;
    if (userId === null && response.response.userHandle !== key.user_handle) return null;
    const result = await verifyAuthenticationResponse({
      response,
      expectedChallenge: async (challenge) =>
        (await this.passkeys.spendChallenge(this.db, challenge, 'authenticate', key.user_id)) !== undefined,
      expectedOrigin: this.settings.origin,
      expectedRPID: this.settings.rpId,
      credential: {
        id: key.credential_id,
        publicKey: isoBase64URL.toBuffer(key.public_key),
        counter: key.counter,
        transports: key.transports,
      },
      requireUserVerification: userId === null,
    }).catch(() => null);
    if (!result?.verified) return null;
    const recorded = await this.passkeys.recordUse(
      this.db,
      key.id,
      key.counter,
      result.authenticationInfo.newCounter,
    );
    return recorded ? key.user_id : null;
  }

  /** Removes one of the account's passkeys; 404 when it has none by that id. */
  async remove(userId: number, id: number): Promise<void> {
    if (!(await this.passkeys.remove(this.db, userId, id))) throw new NotFoundError('Passkey');
  }
}
