/** A determinate bar: `label` names it; it reads "<label> N%", or `valueText` (e.g. "Step 3 of 20") when given. */
export function ProgressBar({ value, label, valueText }: { value: number; label: string; valueText?: string }) {
  const percent = Math.round(Math.min(1, Math.max(0, value)) * 100);
  return (
    <div
      className="progress"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent}
      aria-valuetext={valueText}
    >
      <div className="progress-fill" style={{ width: `${percent}%` }} />
      <span className="progress-text">{valueText ?? `${label} ${percent}%`}</span>
    </div>
  );
}
