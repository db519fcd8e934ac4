import { useQuery } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo } from 'react';
import { apiClient, sessionToken, typed } from './api/client';
import type { Me, Registration, Session } from './api/types';
import { useSessionToken } from './lib/hooks';
import { signInAnswer } from './lib/passkeys';
import { apiKey, queryClient } from './lib/query';

/** What a login answers for an account with a second factor. */
export interface LoginChallenge {
  secondFactorRequired: true;
  challengeToken: string;
  factors: ('totp' | 'passkey')[];
}

/** What answers a login's second step: a code from the app, a recovery code, or a passkey on this device. */
export type LoginProof = { code: string } | { recoveryCode: string } | 'passkey';

export interface RegisterInput {
  email: string;
  password: string;
  username?: string;
  referralCode?: string;
  inviteCode?: string;
}

interface AuthState {
  /** The signed-in user with balances; null when signed out, undefined while loading. */
  me: Me | null | undefined;
  signedIn: boolean;
  /** A session, or the challenge of an account with a second factor (answered with `proveLogin`). */
  login(email: string, password: string): Promise<Session | LoginChallenge>;
  /** The second step of a login: a code from the authenticator app, a recovery code, or a passkey. */
  proveLogin(challengeToken: string, proof: LoginProof): Promise<Session>;
  /** A sign-in with a passkey alone (one that verifies the person: a PIN or biometrics). */
  signInWithPasskey(): Promise<Session>;
  register(input: RegisterInput): Promise<Registration>;
  logout(): Promise<void>;
  /** Re-read the user and balances. */
  refresh(): void;
}

const AuthContext = createContext<AuthState | null>(null);

/** The signed-in user and balance, one read shared by the whole app. */
export const ME_KEY = apiKey('/api/auth/me');

/** Sets the balance the header and the ticket show, from a fresher read (the portfolio's summary). */
export function setBalance(balance: Me['balance']): void {
  queryClient.setQueryData<Me>(ME_KEY, (me) => (me ? { ...me, balance } : me));
}

// Another user's answers must never show: a new session (or none) starts with an empty cache.
sessionToken.subscribe(() => queryClient.clear());

/** Focus and visibility both fire when a person comes back; one fresh balance is enough. */
const REFOCUS_READ_MS = 5_000;

export function AuthProvider({ children }: { children: ReactNode }) {
  const token = useSessionToken();
  const query = useQuery({
    queryKey: ME_KEY,
    queryFn: ({ signal }) => typed(apiClient.GET('/api/auth/me', { signal })),
    enabled: token !== null,
    staleTime: 30_000,
  });
  const me: Me | null | undefined = token === null ? null : query.data;

  const login = useCallback(async (email: string, password: string) => {
    const answer = await typed(apiClient.POST('/api/auth/login', { body: { email, password } }));
    if ('challengeToken' in answer)
      return {
        secondFactorRequired: true as const,
        challengeToken: answer.challengeToken,
        factors: answer.factors,
      };
    sessionToken.set(answer.token);
    return answer;
  }, []);

  const proveLogin = useCallback(async (challengeToken: string, proof: LoginProof) => {
    const given = proof === 'passkey' ? { passkey: await signInAnswer(challengeToken) } : proof;
    const body = { challengeToken, ...given };
    const session = await typed(apiClient.POST('/api/auth/login/second-factor', { body }));
    sessionToken.set(session.token);
    return session;
  }, []);

  const signInWithPasskey = useCallback(async () => {
    const response = await signInAnswer();
    const session = await typed(apiClient.POST('/api/auth/passkey', { body: { response } }));
    sessionToken.set(session.token);
    return session;
  }, []);

  const register = useCallback(async (input: RegisterInput) => {
    const session = await typed(apiClient.POST('/api/auth/register', { body: input }));
    sessionToken.set(session.token);
    return session;
  }, []);

  const logout = useCallback(async () => {
    try {
      await typed(apiClient.POST('/api/auth/logout'));
    } finally {
      sessionToken.set(null);
    }
  }, []);

  const refresh = useCallback(() => void queryClient.invalidateQueries({ queryKey: ME_KEY }), []);

  // Back to a tab after a while: the balance may have moved in another tab or by a fill.
  useEffect(() => {
    if (token === null) return;
    let last = Date.now();
    const onVisible = () => {
      if (document.visibilityState !== 'visible' || Date.now() - last < REFOCUS_READ_MS) return;
      last = Date.now();
      refresh();
    };
    document.addEventListener('visibilitychange', onVisible);
    window.addEventListener('focus', onVisible);
    return () => {
      document.removeEventListener('visibilitychange', onVisible);
      window.removeEventListener('focus', onVisible);
    };
  }, [token, refresh]);

  const value = useMemo(
    () => ({ me, signedIn: token !== null, login, proveLogin, signInWithPasskey, register, logout, refresh }),
    [me, token, login, proveLogin, signInWithPasskey, register, logout, refresh],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const state = useContext(AuthContext);
  if (!state) throw new Error('useAuth needs an AuthProvider');
  return state;
}
