// "Save as template": asks for the template's name (the project's by default) and publishes the canvas for
// everyone; a refusal is shown in the dialog, in the service's words.
import { useId, useState, type FormEvent } from 'react';
import { Modal } from './modal';

interface Props {
  defaultName: string;
  onSave: (name: string) => Promise<void>;
  onClose: () => void;
}

export function SaveTemplateDialog({ defaultName, onSave, onClose }: Props) {
  const titleId = useId();
  const inputId = useId();
  const [name, setName] = useState(defaultName);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onSave(name.trim());
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };

  return (
    <Modal labelledBy={titleId} onClose={onClose}>
      <form onSubmit={(event) => void submit(event)}>
        <h2 id={titleId}>Save as template</h2>
        <p className="muted">Everyone who signs in can see the template, start a project from it, and see your name and picture.</p>
        <label htmlFor={inputId}>Template name</label>
        <input id={inputId} className="input" value={name} maxLength={200} required autoFocus onChange={(e) => setName(e.target.value)} />
        {error && (
          <p className="error small" role="alert">
            {error}
          </p>
        )}
        <div className="row end">
          <button type="button" className="button ghost" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button primary" disabled={busy || name.trim() === ''}>
            {busy ? 'Saving…' : 'Save template'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
