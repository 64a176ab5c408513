import { useState, type FormEvent } from 'react';

export function ProjectCreateForm({ onCreate }: { onCreate: (name: string) => Promise<void> }) {
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onCreate(name.trim() || 'Untitled project');
      setName('');
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="create-form" onSubmit={(event) => void submit(event)}>
      <label htmlFor="new-project-name" className="visually-hidden">
        New project name
      </label>
      <input
        id="new-project-name"
        className="input"
        placeholder="New project name"
        value={name}
        maxLength={200}
        onChange={(e) => setName(e.target.value)}
      />
      <button type="submit" className="button primary" disabled={busy}>
        {busy ? 'Creating…' : 'Create project'}
      </button>
      {error && (
        <p className="error form-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
