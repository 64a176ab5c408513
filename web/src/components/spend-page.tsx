// /spend: what your generations cost today and this month, your daily budget for runs (USER_DAILY_BUDGET_USD) and
// what is left of it today, and your spend per project (GET /api/user/spend). /projects/:id/spend: what the
// project's generations cost per person, for its owner and members (GET /api/projects/{id}/spend). A job the cache
// answered costs nothing; generations without a known price count as $0 (docs/api.md "Spend").
import { useEffect, useState } from 'react';
import { api, errorMessage, NETWORK_ERROR, type paths } from '../api/client';
import { useDocumentTitle } from '../hooks/use-document-title';
import { formatUsd } from '../hooks/use-models';
import { useProjectAccess } from '../hooks/use-project-access';
import { useUser } from '../hooks/use-session';
import { useMonthSpend } from '../hooks/use-spend';
import { projectSpendPath } from '../paths';
import { Link } from '../router';
import { AppHeader } from './app-header';
import { PageStatus } from './page-status';
import '../spend.css';

type ProjectSpend = paths['/api/projects/{id}/spend']['get']['responses'][200]['content']['application/json'];

const count = (n: number) => `${n} ${n === 1 ? 'generation' : 'generations'}`;

export default function SpendPage() {
  useDocumentTitle('Spend');
  const spend = useMonthSpend();
  return (
    <>
      <AppHeader />
      <main className="page spend-page">
        <div className="page-heading">
          <h1>Spend</h1>
        </div>
        {!spend ? (
          <p role="status" className="muted">
            <span className="spinner small" aria-hidden="true" /> Loading what your generations cost…
          </p>
        ) : (
          <>
            <dl className="spend-totals" aria-label="Your spend">
              <div>
                <dt>Today</dt>
                <dd data-spend="today">{formatUsd(spend.todayUsd)}</dd>
              </div>
              <div>
                <dt>This month</dt>
                <dd data-spend="month">
                  {formatUsd(spend.monthUsd)} <span className="muted small">({count(spend.generations)})</span>
                </dd>
              </div>
              <div>
                <dt>Daily budget</dt>
                <dd data-spend="budget">
                  {spend.budgetUsd === null ? (
                    <span className="muted">None</span>
                  ) : (
                    <>
                      {formatUsd(spend.budgetUsd)} <span className="muted small">({formatUsd(Math.max(0, spend.budgetUsd - spend.todayUsd))} left today)</span>
                    </>
                  )}
                </dd>
              </div>
            </dl>
            <section aria-labelledby="spend-projects">
              <h2 id="spend-projects">Per project</h2>
              {spend.projects.length === 0 ? (
                <p className="muted">You have not generated into any project yet.</p>
              ) : (
                <table className="spend-table">
                  <thead>
                    <tr>
                      <th scope="col">Project</th>
                      <th scope="col">Generations</th>
                      <th scope="col">Spent (all time)</th>
                    </tr>
                  </thead>
                  <tbody>
                    {spend.projects.map((p) => (
                      <tr key={p.projectId} data-project-id={p.projectId}>
                        <th scope="row">
                          <Link href={projectSpendPath(p.projectId)}>{p.name}</Link>
                        </th>
                        <td>{p.generations}</td>
                        <td>{formatUsd(p.usd)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </section>
            <p className="muted small">Costs are the providers’ own figures, else their published prices; a result taken from the cache costs nothing. Days and months are UTC.</p>
          </>
        )}
      </main>
    </>
  );
}

type Loaded = { status: 'loading' } | { status: 'ready'; spend: ProjectSpend } | { status: 'error'; message: string };

export function ProjectSpendPage({ projectId }: { projectId: string }) {
  const user = useUser();
  const { state: access, reload } = useProjectAccess(projectId, user.id);
  const [loaded, setLoaded] = useState<Loaded>({ status: 'loading' });
  useDocumentTitle(access.status === 'ready' ? `Spend — ${access.project.name}` : 'Spend');
  useEffect(() => {
    let live = true;
    api.GET('/api/projects/{id}/spend', { params: { path: { id: projectId } } }).then(
      ({ data, error }) => live && setLoaded(data ? { status: 'ready', spend: data } : { status: 'error', message: errorMessage(error, 'Could not load the spend') }),
      () => live && setLoaded({ status: 'error', message: NETWORK_ERROR }),
    );
    return () => {
      live = false;
    };
  }, [projectId]);

  if (access.status !== 'ready' || loaded.status === 'error') {
    const message = access.status === 'not-found' ? 'This project does not exist, or it is not shared with you.' : access.status === 'error' ? access.message : loaded.status === 'error' ? loaded.message : undefined;
    return (
      <>
        <AppHeader />
        {message === undefined ? (
          <PageStatus busy>Loading the spend…</PageStatus>
        ) : (
          <PageStatus
            actions={
              access.status === 'error' ? (
                <button type="button" className="button" onClick={() => void reload()}>
                  Try again
                </button>
              ) : (
                <Link className="button primary" href="/projects">
                  Back to projects
                </Link>
              )
            }
          >
            {message}
          </PageStatus>
        )}
      </>
    );
  }
  return (
    <>
      <AppHeader />
      <main className="page spend-page">
        <div className="page-heading">
          <h1>Spend — {access.project.name}</h1>
          <Link className="button ghost" href={`/projects/${encodeURIComponent(projectId)}`}>
            Open the canvas
          </Link>
        </div>
        {loaded.status === 'loading' ? (
          <p role="status" className="muted">
            <span className="spinner small" aria-hidden="true" /> Loading what the project’s generations cost…
          </p>
        ) : (
          <>
            <p className="spend-project-total">
              All time: <strong data-spend="project-total">{formatUsd(loaded.spend.totalUsd)}</strong>
            </p>
            {loaded.spend.people.length === 0 ? (
              <p className="muted">Nobody has generated into this project yet.</p>
            ) : (
              <table className="spend-table" aria-label="Spend per person">
                <thead>
                  <tr>
                    <th scope="col">Person</th>
                    <th scope="col">Generations</th>
                    <th scope="col">Spent</th>
                  </tr>
                </thead>
                <tbody>
                  {loaded.spend.people.map((p) => (
                    <tr key={p.userId} data-user-id={p.userId}>
                      <th scope="row">
                        {p.name || p.email} {p.name && <span className="muted small">{p.email}</span>}
                      </th>
                      <td>{p.generations}</td>
                      <td>{formatUsd(p.usd)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </>
        )}
      </main>
    </>
  );
}
