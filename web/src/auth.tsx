import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { apiClient, sessionToken, typed } from './api/client';
import type { Me, Registration, Session } from './api/types';
import { useSessionToken } from './lib/hooks';

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
  login(email: string, password: string): Promise<Session>;
  register(input: RegisterInput): Promise<Registration>;
  logout(): Promise<void>;
  /** Re-read the user and balances (after a trade, for instance). */
  refresh(): void;
}

const AuthContext = createContext<AuthState | null>(null);

export function AuthProvider({ children }: { children: ReactNode }) {
  const token = useSessionToken();
  const [me, setMe] = useState<Me | null | undefined>(token ? undefined : null);
  const [version, setVersion] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: version only asks for a fresh read
  useEffect(() => {
    if (!token) {
      setMe(null);
      return;
    }
    const controller = new AbortController();
    typed(apiClient.GET('/api/auth/me', { signal: controller.signal }))
      .then(setMe)
      .catch(() => {
        if (!controller.signal.aborted && !sessionToken.get()) setMe(null);
      });
    return () => controller.abort();
  }, [token, version]);

  const login = useCallback(async (email: string, password: string) => {
    const session = await typed(apiClient.POST('/api/auth/login', { body: { email, password } }));
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

  const refresh = useCallback(() => setVersion((v) => v + 1), []);

  const value = useMemo(
    () => ({ me, signedIn: token !== null, login, register, logout, refresh }),
    [me, token, login, register, logout, refresh],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const state = useContext(AuthContext);
  if (!state) throw new Error('useAuth needs an AuthProvider');
  return state;
}
