import type { ReactNode } from 'react';

/** A full-page state: loading (busy) or a message with optional actions. */
export function PageStatus({ busy, children, actions }: { busy?: boolean; children: ReactNode; actions?: ReactNode }) {
  return (
    <main className="centered">
      <div className="page-status" role={busy ? 'status' : 'alert'} aria-live="polite">
        {busy && <span className="spinner" aria-hidden="true" />}
        <p>{children}</p>
        {actions && <div className="row">{actions}</div>}
      </div>
    </main>
  );
}
