import { BrowserRouter, Route, Routes } from 'react-router';
import { AuthProvider } from './auth';
import { Layout } from './components/Layout';
import { AccountPage } from './pages/Account';
import { LoginPage, RegisterPage } from './pages/Auth';
import { ChallengePage, ChallengesPage } from './pages/Challenges';
import { LeaderboardPage } from './pages/Leaderboard';
import { MarketPage } from './pages/Market';
import { MarketsPage } from './pages/Markets';
import { NotFoundPage } from './pages/NotFound';
import { NotificationsPage } from './pages/Notifications';
import { PortfolioPage } from './pages/Portfolio';
import { ProfilePage } from './pages/Profile';
import { ProgressPage } from './pages/Progress';
import { TournamentPage, TournamentsPage } from './pages/Tournaments';
import { ThemeProvider } from './theme';

export function App() {
  return (
    <BrowserRouter>
      <AuthProvider>
        <ThemeProvider>
          <Layout>
            <Routes>
              <Route path="/" element={<MarketsPage />} />
              <Route path="/markets/:slug" element={<MarketPage />} />
              <Route path="/portfolio" element={<PortfolioPage />} />
              <Route path="/account" element={<AccountPage />} />
              <Route path="/progress" element={<ProgressPage />} />
              <Route path="/notifications" element={<NotificationsPage />} />
              <Route path="/leaderboard" element={<LeaderboardPage />} />
              <Route path="/tournaments" element={<TournamentsPage />} />
              <Route path="/tournaments/:slug" element={<TournamentPage />} />
              <Route path="/challenges" element={<ChallengesPage />} />
              <Route path="/challenges/:code" element={<ChallengePage />} />
              <Route path="/users/:username" element={<ProfilePage />} />
              <Route path="/login" element={<LoginPage />} />
              <Route path="/register" element={<RegisterPage />} />
              <Route path="*" element={<NotFoundPage />} />
            </Routes>
          </Layout>
        </ThemeProvider>
      </AuthProvider>
    </BrowserRouter>
  );
}
