// Routes: `/` landing, `/login`, the signed-in pages `/projects`, `/projects/:id`, `/projects/:id/gallery` (the
// project's generations), `/settings/tokens` (API tokens), `/spend` and `/projects/:id/spend` (what generations cost),
// and `/shared/:token` (a read-only link's page, for anyone).
import { lazy, Suspense, useEffect } from 'react';
import { trackPageView } from './analytics';
import { ErrorBoundary } from './components/error-boundary';
import { LandingPage } from './components/landing-page';
import { LoginPage } from './components/login-page';
import { NotFoundPage } from './components/not-found-page';
import { PageStatus } from './components/page-status';
import { ProjectsPage } from './components/projects-page';
import { RequireSession } from './components/require-session';
import { SessionProvider } from './hooks/use-session';
import { useLocation } from './router';

// The editor (and @xyflow/react) loads only when a canvas is opened.
const CanvasPage = lazy(() => import('./components/canvas-page'));
const SharedPage = lazy(() => import('./components/shared-page'));
const GalleryPage = lazy(() => import('./components/gallery-page'));
const ApiTokensPage = lazy(() => import('./components/api-tokens-page').then((m) => ({ default: m.ApiTokensPage })));
const SpendPage = lazy(() => import('./components/spend-page'));
const ProjectSpendPage = lazy(() => import('./components/spend-page').then((m) => ({ default: m.ProjectSpendPage })));

function Routes() {
  const { pathname } = useLocation();
  useEffect(trackPageView, [pathname]);

  if (pathname === '/') return <LandingPage />;
  if (pathname === '/login') return <LoginPage />;
  if (pathname === '/projects') {
    return (
      <RequireSession>
        <ProjectsPage />
      </RequireSession>
    );
  }
  if (pathname === '/settings/tokens') {
    return (
      <RequireSession>
        <Suspense fallback={<PageStatus busy>Loading…</PageStatus>}>
          <ApiTokensPage />
        </Suspense>
      </RequireSession>
    );
  }
  if (pathname === '/spend') {
    return (
      <RequireSession>
        <Suspense fallback={<PageStatus busy>Loading…</PageStatus>}>
          <SpendPage />
        </Suspense>
      </RequireSession>
    );
  }
  const projectSpend = /^\/projects\/([^/]+)\/spend$/.exec(pathname);
  if (projectSpend) {
    let projectId: string;
    try {
      projectId = decodeURIComponent(projectSpend[1]);
    } catch {
      return <NotFoundPage />;
    }
    return (
      <RequireSession>
        <Suspense fallback={<PageStatus busy>Loading…</PageStatus>}>
          <ProjectSpendPage key={projectId} projectId={projectId} />
        </Suspense>
      </RequireSession>
    );
  }
  const project = /^\/projects\/([^/]+)$/.exec(pathname);
  if (project) {
    let projectId: string;
    try {
      projectId = decodeURIComponent(project[1]);
    } catch {
      return <NotFoundPage />; // broken percent-encoding names no project
    }
    return (
      <RequireSession>
        <Suspense fallback={<PageStatus busy>Opening the canvas…</PageStatus>}>
          <CanvasPage key={projectId} projectId={projectId} />
        </Suspense>
      </RequireSession>
    );
  }
  const gallery = /^\/projects\/([^/]+)\/gallery$/.exec(pathname);
  if (gallery) {
    let projectId: string;
    try {
      projectId = decodeURIComponent(gallery[1]);
    } catch {
      return <NotFoundPage />;
    }
    return (
      <RequireSession>
        <Suspense fallback={<PageStatus busy>Loading the gallery…</PageStatus>}>
          <GalleryPage key={projectId} projectId={projectId} />
        </Suspense>
      </RequireSession>
    );
  }
  const shared = /^\/shared\/([^/]+)$/.exec(pathname);
  if (shared) {
    let token: string;
    try {
      token = decodeURIComponent(shared[1]);
    } catch {
      return <NotFoundPage />;
    }
    return (
      <Suspense fallback={<PageStatus busy>Opening the canvas…</PageStatus>}>
        <SharedPage key={token} token={token} />
      </Suspense>
    );
  }
  return <NotFoundPage />;
}

export function App() {
  return (
    <ErrorBoundary>
      <SessionProvider>
        <Routes />
      </SessionProvider>
    </ErrorBoundary>
  );
}
