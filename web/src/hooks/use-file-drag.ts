import { useEffect, useState, type RefObject } from 'react';

const carriesFiles = (event: DragEvent) => [...(event.dataTransfer?.types ?? [])].includes('Files');

/**
 * Whether files are being dragged over the element: dragenter and dragleave counted (they fire for every child
 * the pointer crosses), only for drags that carry files; over on a drop (anywhere: a node takes its own drop and
 * stops it there), when the drag ends, or when it leaves the element.
 */
export function useFileDrag(element: RefObject<HTMLElement | null>): boolean {
  const [over, setOver] = useState(false);
  useEffect(() => {
    const target = element.current;
    if (!target) return;
    let depth = 0;
    const enter = (event: DragEvent) => {
      if (!carriesFiles(event)) return;
      depth += 1;
      setOver(true);
    };
    const leave = (event: DragEvent) => {
      if (!carriesFiles(event) || depth === 0) return;
      depth -= 1;
      if (depth === 0) setOver(false);
    };
    const end = () => {
      depth = 0;
      setOver(false);
    };
    target.addEventListener('dragenter', enter);
    target.addEventListener('dragleave', leave);
    window.addEventListener('drop', end, true);
    window.addEventListener('dragend', end, true);
    return () => {
      target.removeEventListener('dragenter', enter);
      target.removeEventListener('dragleave', leave);
      window.removeEventListener('drop', end, true);
      window.removeEventListener('dragend', end, true);
    };
  }, [element]);
  return over;
}
