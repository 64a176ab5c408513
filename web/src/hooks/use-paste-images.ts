import { useEffect, useRef } from 'react';

/** Image files pasted anywhere but into a text field (where pasting means text). */
export function usePasteImages(onFiles: (files: File[]) => void): void {
  const handler = useRef(onFiles);
  handler.current = onFiles;
  useEffect(() => {
    const onPaste = (event: ClipboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (target && (target.isContentEditable || ['INPUT', 'TEXTAREA'].includes(target.tagName))) return;
      const files = [...(event.clipboardData?.files ?? [])];
      if (files.length === 0) return;
      event.preventDefault();
      handler.current(files);
    };
    document.addEventListener('paste', onPaste);
    return () => document.removeEventListener('paste', onPaste);
  }, []);
}
