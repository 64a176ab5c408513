// An address the client has no page for (the service answers such a browser request 404 with the client,
// src/http/web-client.ts): says so, with the ways back.
import { useDocumentTitle } from '../hooks/use-document-title';
import { Link } from '../router';

export function NotFoundPage() {
  useDocumentTitle('Not found');
  return (
    <main className="centered">
      <div className="card">
        <h1>Page not found</h1>
        <p className="muted">There is nothing at this address. It may have been mistyped, or the page has moved.</p>
        <div className="row">
          <Link className="button primary" href="/projects">
            Go to your projects
          </Link>
          <Link className="button" href="/">
            Home
          </Link>
        </div>
      </div>
    </main>
  );
}
