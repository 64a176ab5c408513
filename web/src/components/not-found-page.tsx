import { useDocumentTitle } from '../hooks/use-document-title';
import { Link } from '../router';

export function NotFoundPage() {
  useDocumentTitle('Not found');
  return (
    <main className="centered">
      <div className="card">
        <h1>Page not found</h1>
        <p className="muted">There is nothing at this address.</p>
        <Link className="button primary" href="/projects">
          Go to your projects
        </Link>
      </div>
    </main>
  );
}
