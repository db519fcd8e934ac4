import { BrowserRouter, Route, Routes } from 'react-router';
import { AuthProvider } from './auth';
import { Layout } from './components/Layout';
import { AccountPage } from './pages/Account';
import { LoginPage, RegisterPage } from './pages/Auth';
import { AdminLayout } from './pages/admin/AdminLayout';
import { AdminDisputesPage } from './pages/admin/Disputes';
import { AdminEventPage } from './pages/admin/EventDetail';
import { AdminEventsPage } from './pages/admin/Events';
import { AdminReportsPage, AdminSuggestionsPage } from './pages/admin/Moderation';
import { AdminAuditPage, AdminFlagsPage, AdminTournamentsPage } from './pages/admin/System';
import { ChallengePage, ChallengesPage } from './pages/Challenges';
import { CopyTradingPage } from './pages/CopyTrading';
import { LeaderboardPage } from './pages/Leaderboard';
import { MarketPage } from './pages/Market';
import { MarketsPage } from './pages/Markets';
import { NotFoundPage } from './pages/NotFound';
import { NotificationsPage } from './pages/Notifications';
import { PortfolioPage } from './pages/Portfolio';
import { ProfilePage } from './pages/Profile';
import { ProgressPage } from './pages/Progress';
import { SuggestionsPage } from './pages/Suggestions';
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
              <Route path="/copy-trading" element={<CopyTradingPage />} />
              <Route path="/suggest" element={<SuggestionsPage />} />
              <Route path="/admin" element={<AdminLayout />}>
                <Route index element={<AdminEventsPage />} />
                <Route path="events/:id" element={<AdminEventPage />} />
                <Route path="disputes" element={<AdminDisputesPage />} />
                <Route path="reports" element={<AdminReportsPage />} />
                <Route path="suggestions" element={<AdminSuggestionsPage />} />
                <Route path="tournaments" element={<AdminTournamentsPage />} />
                <Route path="flags" element={<AdminFlagsPage />} />
                <Route path="audit" element={<AdminAuditPage />} />
              </Route>
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
