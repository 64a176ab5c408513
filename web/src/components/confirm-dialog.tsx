// A modal confirmation on the native <dialog> (focus trapped, Escape cancels).
import { useId, type ReactNode } from 'react';
import { Modal } from './modal';

interface Props {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

export function ConfirmDialog({ title, children, confirmLabel, busy, onConfirm, onCancel }: Props) {
  const titleId = useId();

  return (
    <Modal labelledBy={titleId} onClose={onCancel}>
      <h2 id={titleId}>{title}</h2>
      <p className="muted">{children}</p>
      <div className="row end">
        <button type="button" className="button ghost" onClick={onCancel} autoFocus>
          Cancel
        </button>
        <button type="button" className="button danger-solid" onClick={onConfirm} disabled={busy}>
          {busy ? 'Deleting…' : confirmLabel}
        </button>
      </div>
    </Modal>
  );
}
