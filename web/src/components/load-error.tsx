// A list that could not be loaded, inline: the reason and a retry link (templates, shared projects, members).
export function LoadError({ message, onRetry, className = 'muted small' }: { message: string; onRetry: () => void; className?: string }) {
  return (
    <p className={className} role="alert">
      {message}.{' '}
      <button type="button" className="link-button" onClick={onRetry}>
        Try again
      </button>
    </p>
  );
}
