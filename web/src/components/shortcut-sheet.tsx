// The shortcut sheet: every shortcut of the canvas (canvas/shortcuts.ts), opened with `?` or the keyboard button
// beside the zoom controls; Escape or Done closes it.
import { Fragment, useId } from 'react';
import { SHORTCUT_GROUPS } from '../canvas/shortcuts';
import { Modal } from './modal';
import './canvas-conventions.css';

export function ShortcutSheet({ onClose }: { onClose: () => void }) {
  const titleId = useId();
  return (
    <Modal labelledBy={titleId} className="dialog shortcut-sheet" onClose={onClose}>
      <h2 id={titleId}>Keyboard shortcuts</h2>
      {SHORTCUT_GROUPS.map((group) => (
        <section key={group.title} aria-label={group.title}>
          <h3>{group.title}</h3>
          <dl className="shortcut-list">
            {group.shortcuts.map((shortcut) => (
              <Fragment key={shortcut.action}>
                <dt>
                  {shortcut.keys.map((combination, i) => (
                    <Fragment key={combination.join('+')}>
                      {i > 0 && <span className="muted"> or </span>}
                      {combination.map((key, j) => (
                        <Fragment key={key}>
                          {j > 0 && <span aria-hidden="true">+</span>}
                          <kbd>{key}</kbd>
                        </Fragment>
                      ))}
                    </Fragment>
                  ))}
                </dt>
                <dd>{shortcut.action}</dd>
              </Fragment>
            ))}
          </dl>
        </section>
      ))}
      <div className="row end">
        <button type="button" className="button" onClick={onClose} autoFocus>
          Done
        </button>
      </div>
    </Modal>
  );
}
