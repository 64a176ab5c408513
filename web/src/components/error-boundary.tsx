import { Component, type ReactNode } from 'react';

/** Last line of defence: a readable message instead of a blank page. */
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
          <p className="muted">The page hit an unexpected error. Your saved work is safe.</p>
          <button type="button" className="button primary" onClick={() => window.location.reload()}>
            Reload the page
          </button>
        </div>
      </main>
    );
  }
}
