// The frame of every modal dialog, on the native <dialog>: opened modal on mount (focus trapped, the rest inert),
// closed on unmount; Escape asks the owner to close it (`onClose`) instead of closing it behind React's back.
import { useEffect, useRef, type ReactNode } from 'react';

interface Props {
  /** The id of the dialog's heading (its accessible name). */
  labelledBy: string;
  className?: string;
  onClose: () => void;
  children: ReactNode;
}

export function Modal({ labelledBy, className = 'dialog', onClose, children }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);

  return (
    <dialog
      ref={ref}
      className={className}
      aria-labelledby={labelledBy}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      {children}
    </dialog>
  );
}

/** The end of a dialog: its last refusal (an alert), its status note, and Done. */
export function DialogFooter({ error, note, onClose }: { error: string | null | undefined; note: string | null; onClose: () => void }) {
  return (
    <>
      {error && (
        <p className="error small" role="alert">
          {error}
        </p>
      )}
      <p className="small share-note" role="status">
        {note}
      </p>
      <div className="row end">
        <button type="button" className="button" onClick={onClose}>
          Done
        </button>
      </div>
    </>
  );
}
