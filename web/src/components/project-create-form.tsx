// A new project: its name (required), then **Create and open** (the primary action, and Enter's: go to its canvas)
// or **Create** (stay on the page; the new project is marked in the list). For a person's first project, **Start
// with an example canvas** is offered and ticked: the service puts a short example into the new canvas (docs/api.md
// "Example canvas").
import { useId, useState, type FormEvent } from 'react';

export interface CreateOptions {
  /** Go to the new project's canvas. */
  open: boolean;
  /** Put the example canvas into it. */
  example: boolean;
}

interface Props {
  onCreate: (name: string, options: CreateOptions) => Promise<void>;
  /** Offer the example canvas (the person has no project yet). */
  offerExample: boolean;
}

export function ProjectCreateForm({ onCreate, offerExample }: Props) {
  const [name, setName] = useState('');
  const [example, setExample] = useState(true);
  const [busy, setBusy] = useState<'create' | 'open' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const errorId = useId();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    // The button that submitted: Enter in the field is Create and open (the first submit button).
    const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
    const open = submitter?.value !== 'create';
    const trimmed = name.trim();
    if (!trimmed) {
      setError('Give the project a name.');
      return;
    }
    setBusy(open ? 'open' : 'create');
    setError(null);
    try {
      await onCreate(trimmed, { open, example: offerExample && example });
      setName('');
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(null);
    }
  };

  return (
    <form className="create-form" onSubmit={(event) => void submit(event)} noValidate>
      <label htmlFor="new-project-name" className="visually-hidden">
        New project name
      </label>
      <input
        id="new-project-name"
        className="input"
        placeholder="New project name"
        value={name}
        maxLength={200}
        required
        aria-invalid={error !== null && !name.trim()}
        aria-describedby={error ? errorId : undefined}
        onChange={(e) => setName(e.target.value)}
      />
      <button type="submit" name="action" value="open" className="button primary" disabled={busy !== null}>
        {busy === 'open' ? 'Creating…' : 'Create and open'}
      </button>
      <button type="submit" name="action" value="create" className="button" disabled={busy !== null}>
        {busy === 'create' ? 'Creating…' : 'Create'}
      </button>
      {offerExample && (
        <label className="create-example">
          <input type="checkbox" checked={example} onChange={(e) => setExample(e.target.checked)} /> Start with an example canvas
        </label>
      )}
      {error && (
        <p id={errorId} className="error form-error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
