import {
  type AuthenticationResponseJSON,
  browserSupportsWebAuthn,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  startAuthentication,
  startRegistration,
} from '@simplewebauthn/browser';
import { apiClient, typed } from '../api/client';

/** Whether this browser can make and use passkeys at all (the buttons hide otherwise). */
export const passkeysSupported = (): boolean => browserSupportsWebAuthn();

/** The browser's answer as the contract types it (its extension results an open map). */
function toWire<T extends AuthenticationResponseJSON | RegistrationResponseJSON>(
  answer: T,
): Omit<T, 'clientExtensionResults'> & { clientExtensionResults: Record<string, unknown> } {
  const clientExtensionResults: Record<string, unknown> = { ...answer.clientExtensionResults };
  return { ...answer, clientExtensionResults };
}

/** Asks the browser for a passkey's answer to sign-in options the service made. */
export async function answerWithPasskey(options: unknown) {
  return toWire(await startAuthentication({ optionsJSON: options as PublicKeyCredentialRequestOptionsJSON }));
}

/** The options of a login's second step (with its challenge token), or of a sign-in with a passkey alone. */
export async function signInAnswer(challengeToken?: string) {
  const body = challengeToken === undefined ? {} : { challengeToken };
  return answerWithPasskey(await typed(apiClient.POST('/api/auth/passkey/options', { body })));
}

/**
 * Makes a passkey on this device for the signed-in account (the account's first factor needs its `password`); the
 * recovery codes when it is the first factor.
 */
export async function registerPasskey(name: string, password?: string): Promise<{ recoveryCodes: string[] }> {
  const options = await typed(apiClient.POST('/api/me/passkeys/options'));
  const answer = await startRegistration({ optionsJSON: options as PublicKeyCredentialCreationOptionsJSON });
  const body = { name, response: toWire(answer), ...(password === undefined ? {} : { password }) };
  return typed(apiClient.POST('/api/me/passkeys', { body }));
}

/** Proves a passkey for this session, so that the sensitive actions go through for the next minutes. */
export async function provePasskey(): Promise<void> {
  const options = await typed(apiClient.POST('/api/me/second-factors/passkey-options'));
  const passkey = await answerWithPasskey(options);
  await typed(apiClient.POST('/api/me/second-factors/verify', { body: { passkey } }));
}
