// Two images over each other with a wipe between them (before on the left of the line, after on the right), as
// image tools compare a before and an after: drag anywhere on them, or use the keyboard on the slider (arrows move
// by 1 %, Page Up/Down by 10 %, Home/End to either side). The slider is a native range input laid over the images,
// so it is focusable, named and announced as any slider is. Used to compare two results (variant-strip.tsx) and two
// versions; standalone: give it the two URLs and what to call them.
import { useId, useState, type CSSProperties } from 'react';
import './compare-slider.css';

export interface CompareSliderProps {
  /** The image shown left of the line. */
  before: string;
  /** The image shown right of the line. */
  after: string;
  beforeLabel: string;
  afterLabel: string;
  /** Where the line starts, in % from the left (default 50). */
  initial?: number;
}

export function CompareSlider({ before, after, beforeLabel, afterLabel, initial = 50 }: CompareSliderProps) {
  const [split, setSplit] = useState(() => Math.min(100, Math.max(0, initial)));
  const hintId = useId();
  return (
    <div className="compare-slider" style={{ '--split': `${split}%` } as CSSProperties} data-split={split}>
      <img className="compare-image compare-after" src={after} alt={afterLabel} draggable={false} />
      <img className="compare-image compare-before" src={before} alt={beforeLabel} draggable={false} />
      <span className="compare-label compare-label-before" aria-hidden="true">
        {beforeLabel}
      </span>
      <span className="compare-label compare-label-after" aria-hidden="true">
        {afterLabel}
      </span>
      <span className="compare-line" aria-hidden="true" />
      <input
        className="compare-range"
        type="range"
        min={0}
        max={100}
        step={1}
        value={split}
        aria-label={`Compare ${beforeLabel} with ${afterLabel}`}
        aria-valuetext={`${split}% ${beforeLabel}, ${100 - split}% ${afterLabel}`}
        aria-describedby={hintId}
        onChange={(event) => setSplit(Number(event.target.value))}
      />
      <span id={hintId} className="visually-hidden">
        {beforeLabel} is left of the line, {afterLabel} right of it: move the line with the arrow keys or by dragging.
      </span>
    </div>
  );
}
