// The canvas toolbar: add images or a generation node, connect or delete the selection, undo and redo (this
// tab's own changes), the history of versions, the project's gallery of generations, save the canvas as a template,
// share the project (its owner only). On a phone-sized screen (SMALL_SCREEN) it is one row: adding images and
// a generation node, Undo, and a More menu with the rest (and the minimap, hidden there unless shown).
import { useId } from 'react';
import { SMALL_SCREEN, useMediaQuery } from '../hooks/use-media-query';
import { Link, navigate } from '../router';
import { MoreMenu } from './more-menu';

interface Props {
  onAddImages: (files: File[]) => void;
  onAddGeneration: () => void;
  onConnectSelected: () => void;
  canConnect: boolean;
  onDeleteSelected: () => void;
  canDelete: boolean;
  onUndo: () => void;
  onRedo: () => void;
  canUndo: boolean;
  canRedo: boolean;
  onSaveTemplate: () => void;
  canSaveTemplate: boolean;
  /** Opens the history of versions (restore points and named versions). */
  onShowHistory: () => void;
  /** The project's gallery page (every generation, searchable). */
  galleryHref: string;
  /** Shown beside the buttons for a while after a template was saved or a version restored (refusals are shown in their dialogs). */
  note?: string | null;
  /** Opens the share dialog; absent (no Share button) for anyone but the owner. */
  onShare?: () => void;
  /** Whether the minimap shows, and the way to change it (the compact toolbar's More menu offers it). */
  minimap?: { shown: boolean; toggle: () => void };
}

const mac = /Mac|iPhone|iPad/.test(navigator.platform);
const mod = mac ? '⌘' : 'Ctrl+';

function AddImages({ onAddImages }: Pick<Props, 'onAddImages'>) {
  const inputId = useId();
  return (
    <label className="button file-button" htmlFor={inputId}>
      Add images
      <input
        id={inputId}
        className="visually-hidden"
        type="file"
        accept="image/*"
        multiple
        onChange={(event) => {
          const files = [...(event.target.files ?? [])];
          event.target.value = '';
          onAddImages(files);
        }}
      />
    </label>
  );
}

export function EditorToolbar(props: Props) {
  const compact = useMediaQuery(SMALL_SCREEN);
  if (compact) return <CompactToolbar {...props} />;
  return (
    <div className="editor-toolbar" role="toolbar" aria-label="Canvas tools">
      <AddImages onAddImages={props.onAddImages} />
      <button type="button" className="button" onClick={props.onAddGeneration}>
        Add generation
      </button>
      <span className="toolbar-separator" aria-hidden="true" />
      <button type="button" className="button ghost" onClick={props.onConnectSelected} disabled={!props.canConnect} title="Connect the selected images into the selected generation node">
        Connect selected
      </button>
      <button type="button" className="button ghost" onClick={props.onDeleteSelected} disabled={!props.canDelete} title="Delete the selection (Delete or Backspace)">
        Delete selected
      </button>
      <span className="toolbar-separator" aria-hidden="true" />
      <button type="button" className="button ghost" onClick={props.onUndo} disabled={!props.canUndo} title={`Undo your last change (${mod}Z)`} aria-keyshortcuts="Control+Z Meta+Z">
        Undo
      </button>
      <button type="button" className="button ghost" onClick={props.onRedo} disabled={!props.canRedo} title={`Redo (${mod}${mac ? '⇧Z' : 'Y'})`} aria-keyshortcuts="Control+Shift+Z Meta+Shift+Z Control+Y">
        Redo
      </button>
      <span className="toolbar-separator" aria-hidden="true" />
      <button type="button" className="button ghost" onClick={props.onShowHistory} title="Restore points and named versions of this canvas" aria-haspopup="dialog">
        History
      </button>
      <Link className="button ghost" href={props.galleryHref} title="Every generation of this project, with its prompt: search and download">
        Gallery
      </Link>
      <button type="button" className="button ghost" onClick={props.onSaveTemplate} disabled={!props.canSaveTemplate} title="Publish this canvas as a template everyone can start from">
        Save as template
      </button>
      {props.onShare && (
        <button type="button" className="button ghost" onClick={props.onShare} title="Invite people by email, or make a read-only link" aria-haspopup="dialog">
          Share
        </button>
      )}
      <span className="toolbar-note" role="status">
        {props.note}
      </span>
    </div>
  );
}

/** The phone's toolbar: one row, the rest in More. */
function CompactToolbar(props: Props) {
  const actions = [
    { label: 'Connect selected', onSelect: props.onConnectSelected, disabled: !props.canConnect, title: 'Connect the selected images into the selected generation node' },
    { label: 'Delete selected', onSelect: props.onDeleteSelected, disabled: !props.canDelete },
    { label: 'Redo', onSelect: props.onRedo, disabled: !props.canRedo },
    { label: 'History', onSelect: props.onShowHistory },
    { label: 'Gallery', onSelect: () => navigate(props.galleryHref), href: props.galleryHref },
    { label: 'Save as template', onSelect: props.onSaveTemplate, disabled: !props.canSaveTemplate },
    ...(props.onShare ? [{ label: 'Share', onSelect: props.onShare }] : []),
    ...(props.minimap ? [{ label: props.minimap.shown ? 'Hide minimap' : 'Show minimap', onSelect: props.minimap.toggle }] : []),
  ];
  return (
    <div className="editor-toolbar compact" role="toolbar" aria-label="Canvas tools">
      <AddImages onAddImages={props.onAddImages} />
      <button type="button" className="button" onClick={props.onAddGeneration}>
        Add generation
      </button>
      <button type="button" className="button ghost" onClick={props.onUndo} disabled={!props.canUndo} aria-label="Undo" title="Undo your last change" aria-keyshortcuts="Control+Z Meta+Z">
        <span aria-hidden="true">↶</span>
      </button>
      <MoreMenu actions={actions} />
      <span className="toolbar-note" role="status">
        {props.note}
      </span>
    </div>
  );
}
