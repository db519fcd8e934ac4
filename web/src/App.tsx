import { QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { BrowserRouter, Route, Routes } from 'react-router';
import { AuthProvider } from './auth';
import { Layout } from './components/Layout';
import { Loading } from './components/Status';
import { queryClient } from './lib/query';
import { AccountPage } from './pages/Account';
import { ForgotPasswordPage, ResetPasswordPage, VerifyEmailPage } from './pages/AddressPages';
import { LoginPage, RegisterPage } from './pages/Auth';
import { ChallengePage, ChallengesPage } from './pages/Challenges';
import { CopyTradingPage } from './pages/CopyTrading';
import { LeaderboardPage } from './pages/Leaderboard';
import { MarketPage } from './pages/Market';
import { MarketsPage } from './pages/Markets';
import { NotesPage } from './pages/Notes';
import { NotFoundPage } from './pages/NotFound';
import { NotificationsPage } from './pages/Notifications';
import { PortfolioPage } from './pages/Portfolio';
import { ProfilePage } from './pages/Profile';
import { ProgressPage } from './pages/Progress';
import { SuggestionsPage } from './pages/Suggestions';
import { TournamentPage, TournamentsPage } from './pages/Tournaments';
import { WatchlistPage } from './pages/Watchlist';
import { ThemeProvider } from './theme';

// The operators' console is its own chunk: traders never download it.
const AdminConsole = lazy(() => import('./pages/admin/Console'));

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <AuthProvider>
          <ThemeProvider>
            <Layout>
              <Routes>
                <Route path="/" element={<MarketsPage />} />
                <Route path="/markets/:slug" element={<MarketPage />} />
                <Route path="/portfolio" element={<PortfolioPage />} />
                <Route path="/watchlist" element={<WatchlistPage />} />
                <Route path="/notes" element={<NotesPage />} />
                <Route path="/account" element={<AccountPage />} />
                <Route path="/progress" element={<ProgressPage />} />
                <Route path="/notifications" element={<NotificationsPage />} />
                <Route path="/leaderboard" element={<LeaderboardPage />} />
                <Route path="/tournaments" element={<TournamentsPage />} />
                <Route path="/tournaments/:slug" element={<TournamentPage />} />
                <Route path="/challenges" element={<ChallengesPage />} />
                <Route path="/challenges/:code" element={<ChallengePage />} />
                <Route path="/users/:username" element={<ProfilePage />} />
                <Route path="/copy-trading" element={<CopyTradingPage />} />
                <Route path="/suggest" element={<SuggestionsPage />} />
                <Route
                  path="/admin/*"
                  element={
                    <Suspense fallback={<Loading label="Loading the console…" />}>
                      <AdminConsole />
                    </Suspense>
                  }
                />
                <Route path="/login" element={<LoginPage />} />
                <Route path="/register" element={<RegisterPage />} />
                <Route path="/verify-email" element={<VerifyEmailPage />} />
                <Route path="/forgot-password" element={<ForgotPasswordPage />} />
                <Route path="/reset-password" element={<ResetPasswordPage />} />
                <Route path="*" element={<NotFoundPage />} />
              </Routes>
            </Layout>
          </ThemeProvider>
        </AuthProvider>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
