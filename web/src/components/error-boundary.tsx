import { Component, type ReactNode } from 'react';

/**
 * Last line of defence: a readable message instead of a blank page, with the ways on — reload the page, or go
 * back to the projects. Both are full page loads (plain links, not the client's router): whatever broke is
 * left behind. Also what shows when a part of the client could not be loaded (the editor's code, offline).
 */
export class ErrorBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  state = { failed: false };

  static getDerivedStateFromError() {
    return { failed: true };
  }

  render() {
    if (!this.state.failed) return this.props.children;
    return (
      <main className="centered">
        <div className="card" role="alert">
          <h1>Something went wrong</h1>
          <p className="muted">The page hit an unexpected error, or a part of it could not be loaded. Your saved work is safe.</p>
          <div className="row">
            <button type="button" className="button primary" onClick={() => window.location.reload()}>
              Reload
            </button>
            <a className="button" href="/projects">
              Back to projects
            </a>
          </div>
        </div>
      </main>
    );
  }
}
