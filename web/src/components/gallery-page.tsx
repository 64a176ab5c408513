// /projects/:id/gallery: every generation into the project (anyone's, newest first; members only) with its
// prompt, author, date and model (by its name, GET /api/models), and a download named after the project and the
// prompt. A search box finds by words of the prompt (debounced; kept in the URL's `q`, so a search can be linked
// and survives a reload); filters choose the project (another project's gallery) and the model (the URL's `model`);
// "Load more" reads the next page. A click on an image opens it full size (components/result-lightbox.tsx) with
// Show on canvas (the project opens with the node selected and in view) and Reuse prompt (the project opens with a
// new generation node holding the prompt and model, fed by the same images, beside the node: a prompt is reused to
// run it again, changed or on other images, and a node is where a prompt runs; Copy prompt is there too).
// Several ticked download as one ZIP (hooks/use-gallery-download.ts).
import { useEffect, useId, useState } from 'react';
import { api, generationDownloadPath, type ProjectGeneration, type ProjectRole } from '../api/client';
import { handOffPrompt, reusePromptPath, showOnCanvasPath } from '../canvas/result-handoff';
import { useGalleryDownload } from '../hooks/use-gallery-download';
import { useModels } from '../hooks/use-models';
import { useDocumentTitle } from '../hooks/use-document-title';
import { useGallery } from '../hooks/use-project-generations';
import { useProjectAccess } from '../hooks/use-project-access';
import { useUser } from '../hooks/use-session';
import { galleryPath, projectSpendPath } from '../paths';
import { Link, navigate, useLocation } from '../router';
import { AppHeader } from './app-header';
import { LoadError } from './load-error';
import { isWebUrl } from './node-image';
import { PageStatus } from './page-status';
import { modelName, ResultLightbox } from './result-lightbox';
import './gallery.css';

/** How long typing pauses before the search runs. */
const DEBOUNCE_MS = 300;

const when = (iso: string) => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
};

export default function GalleryPage({ projectId }: { projectId: string }) {
  const user = useUser();
  const { state: access, reload } = useProjectAccess(projectId, user.id);
  useDocumentTitle(access.status === 'ready' ? `Gallery — ${access.project.name}` : 'Gallery');

  if (access.status === 'ready') return <Gallery projectId={projectId} projectName={access.project.name} role={access.role} userId={user.id} />;
  return (
    <>
      <AppHeader />
      {access.status === 'loading' && <PageStatus busy>Loading the gallery…</PageStatus>}
      {access.status === 'not-found' && (
        <PageStatus
          actions={
            <Link className="button primary" href="/projects">
              Back to projects
            </Link>
          }
        >
          This project does not exist, or it is not shared with you.
        </PageStatus>
      )}
      {access.status === 'error' && (
        <PageStatus
          actions={
            <button type="button" className="button" onClick={() => void reload()}>
              Try again
            </button>
          }
        >
          {access.message}
        </PageStatus>
      )}
    </>
  );
}

function Gallery({ projectId, projectName, role, userId }: { projectId: string; projectName: string; role: ProjectRole; userId: string }) {
  const searchId = useId();
  const projectFilterId = useId();
  const modelFilterId = useId();
  const search = useLocation().search;
  const q = search.get('q') ?? '';
  const model = search.get('model') ?? '';
  const [text, setText] = useState(q);
  const { state, loadMore, reload } = useGallery(projectId, q, model);
  const catalogue = useModels();
  const projects = useProjectChoices(userId);
  const [open, setOpen] = useState<string | null>(null);
  const [picked, setPicked] = useState<string[]>([]);
  const zip = useGalleryDownload(projectId, projectName);

  // Typing settles into the URL (replacing the entry: one history step per visit, not per keystroke).
  useEffect(() => {
    if (text.trim() === q.trim()) return;
    const timer = setTimeout(() => navigate(galleryPath(projectId, text, model), { replace: true }), DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, q, model, projectId]);

  const canvasHref = `/projects/${encodeURIComponent(projectId)}`;
  const filtering = q.trim() !== '' || model !== '';
  const shown = state.items.find((g) => g.id === open);
  /** Opens the item `by` places from the one open (undefined: none there). */
  const neighbour = (by: number) => {
    const at = shown ? state.items.indexOf(shown) + by : -1;
    const other = state.items[at] as ProjectGeneration | undefined;
    return other && (() => setOpen(other.id));
  };
  // The models offered: the catalogue's, and any a listed generation (or the URL) names that it no longer lists.
  const modelIds = [...new Set([...(catalogue.state === 'loaded' ? catalogue.models.map((m) => m.id) : []), ...state.items.map((g) => g.model), ...(model ? [model] : [])])];
  const pickedItems = picked.filter((id) => state.items.some((g) => g.id === id));
  const toggle = (id: string, on: boolean) => setPicked((p) => (on ? [...p.filter((x) => x !== id), id] : p.filter((x) => x !== id)));
  const reuse = (g: ProjectGeneration) => {
    handOffPrompt(projectId, { prompt: g.prompt, model: g.model, nodeId: g.nodeId });
    navigate(reusePromptPath(projectId));
  };
  const listName = filtering ? `Generations matching ${[q.trim() && `“${q.trim()}”`, model && modelName(catalogue, model)].filter(Boolean).join(' and ')}` : 'Generations';

  return (
    <>
      <AppHeader>
        <nav className="breadcrumb" aria-label="Breadcrumb">
          <Link href="/projects">Projects</Link>
          <span aria-hidden="true">/</span>
          <Link href={canvasHref}>{projectName}</Link>
          <span aria-hidden="true">/</span>
          <span className="breadcrumb-current" aria-current="page">
            Gallery
          </span>
        </nav>
      </AppHeader>
      <main className="page gallery-page">
        <div className="page-heading">
          <h1>Gallery</h1>
          <Link className="button ghost" href={projectSpendPath(projectId)} title="What this project's generations cost, per person">
            Spend
          </Link>
          <Link className="button ghost" href={canvasHref}>
            Back to the canvas
          </Link>
        </div>
        <div className="gallery-filters">
          <form className="gallery-search" role="search" onSubmit={(event) => (event.preventDefault(), navigate(galleryPath(projectId, text, model), { replace: true }))}>
            <label htmlFor={searchId} className="visually-hidden">
              Search prompts
            </label>
            <input id={searchId} className="input" type="search" value={text} placeholder="Search prompts, e.g. “sepia”" maxLength={200} onChange={(e) => setText(e.target.value)} />
          </form>
          <div className="gallery-filter">
            <label htmlFor={projectFilterId}>Project</label>
            <select id={projectFilterId} className="input" value={projectId} onChange={(e) => navigate(galleryPath(e.target.value))}>
              {(projects.some((p) => p.id === projectId) ? projects : [{ id: projectId, name: projectName }, ...projects]).map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </div>
          <div className="gallery-filter">
            <label htmlFor={modelFilterId}>Model</label>
            <select id={modelFilterId} className="input" value={model} onChange={(e) => navigate(galleryPath(projectId, q, e.target.value), { replace: true })}>
              <option value="">All models</option>
              {modelIds.map((id) => (
                <option key={id} value={id}>
                  {modelName(catalogue, id)}
                </option>
              ))}
            </select>
          </div>
        </div>

        {state.items.length > 0 && (
          <div className="gallery-selection" role="group" aria-label="Selection">
            <span className="muted small" role="status">
              {pickedItems.length === 0 ? 'Tick images to download several at once.' : `${pickedItems.length} selected`}
            </span>
            <button type="button" className="button small" onClick={() => setPicked(state.items.map((g) => g.id))} disabled={pickedItems.length === state.items.length}>
              Select all
            </button>
            {pickedItems.length > 0 && (
              <>
                <button type="button" className="button small primary" onClick={() => void zip.download(pickedItems)} disabled={zip.state.status === 'working'}>
                  {zip.state.status === 'working' ? `Preparing ${zip.state.done} of ${zip.state.total}…` : `Download ${pickedItems.length} as ZIP`}
                </button>
                <button type="button" className="button small ghost" onClick={() => setPicked([])}>
                  Clear selection
                </button>
              </>
            )}
            {zip.state.status === 'error' && (
              <span className="error small" role="alert">
                {zip.state.message}
              </span>
            )}
          </div>
        )}

        {state.status === 'error' && state.items.length === 0 && <LoadError className="notice error" message={state.message} onRetry={reload} />}
        {state.status === 'ready' && state.items.length === 0 && (
          <p className="muted" role="status">
            {filtering ? `No generations match${q.trim() ? ` “${q.trim()}”` : ''}${model ? `${q.trim() ? ' with' : ''} ${modelName(catalogue, model)}` : ''}.` : 'No generations yet: run a generation node on the canvas, and its results gather here.'}
          </p>
        )}
        {state.items.length > 0 && (
          <ul className="gallery-grid" aria-label={listName}>
            {state.items.map((g) => (
              <GalleryItem
                key={g.id}
                projectId={projectId}
                generation={g}
                modelLabel={modelName(catalogue, g.model) ?? g.model}
                picked={picked.includes(g.id)}
                onPick={(on) => toggle(g.id, on)}
                onOpen={() => setOpen(g.id)}
              />
            ))}
          </ul>
        )}
        {state.status === 'error' && state.items.length > 0 && <LoadError className="error small" message={state.message} onRetry={reload} />}
        {state.status === 'loading' && (
          <p className="muted" role="status">
            <span className="spinner small" aria-hidden="true" /> Loading…
          </p>
        )}
        {state.status === 'ready' && state.nextCursor && (
          <div className="row gallery-more">
            <button type="button" className="button" onClick={loadMore}>
              Load more
            </button>
          </div>
        )}
      </main>
      {shown && (
        <ResultLightbox
          title={shown.prompt.trim() ? `“${shown.prompt.length > 60 ? `${shown.prompt.slice(0, 60)}…` : shown.prompt}”` : 'A generation'}
          result={{ src: shown.outputImageUrl, prompt: shown.prompt, model: shown.model, author: shown.author.name, createdAt: shown.createdAt, text: shown.text ?? undefined, downloadHref: generationDownloadPath(projectId, shown.id) }}
          onClose={() => setOpen(null)}
          previous={neighbour(-1)}
          next={neighbour(1)}
          actions={
            <>
              {shown.nodeId && (
                <Link className="button small" href={showOnCanvasPath(projectId, shown.nodeId)}>
                  Show on canvas
                </Link>
              )}
              {role !== 'viewer' && (
                <button type="button" className="button small" onClick={() => reuse(shown)} title="Open the canvas with a new generation node holding this prompt">
                  Reuse prompt
                </button>
              )}
            </>
          }
        />
      )}
    </>
  );
}

interface ItemProps {
  projectId: string;
  generation: ProjectGeneration;
  modelLabel: string;
  picked: boolean;
  onPick: (on: boolean) => void;
  onOpen: () => void;
}

function GalleryItem({ projectId, generation: g, modelLabel, picked, onPick, onOpen }: ItemProps) {
  return (
    <li className={`gallery-item${picked ? ' picked' : ''}`} data-generation-id={g.id}>
      {isWebUrl(g.outputImageUrl) ? (
        <button type="button" className="gallery-open" aria-label={`Open “${g.prompt}” full size`} aria-haspopup="dialog" onClick={onOpen}>
          <img src={g.outputImageUrl} alt={g.prompt} loading="lazy" decoding="async" />
        </button>
      ) : (
        <div className="gallery-missing" aria-hidden="true" />
      )}
      <input type="checkbox" className="gallery-pick" aria-label={`Select “${g.prompt}”`} checked={picked} onChange={(e) => onPick(e.target.checked)} />
      <div className="gallery-meta">
        <p className="gallery-prompt">{g.prompt}</p>
        <p className="muted small">
          {g.author.name ?? 'Someone'} · <time dateTime={g.createdAt}>{when(g.createdAt)}</time> · {modelLabel}
        </p>
        <a className="button small" href={generationDownloadPath(projectId, g.id)} download aria-label={`Download “${g.prompt}”`}>
          Download
        </a>
      </div>
    </li>
  );
}

/** The projects the user may open (their own, then those shared with them), for the project filter; none until read. */
function useProjectChoices(userId: string): { id: string; name: string }[] {
  const [projects, setProjects] = useState<{ id: string; name: string }[]>([]);
  useEffect(() => {
    let live = true;
    void Promise.all([api.GET('/api/user/project', { params: { query: { userId } } }), api.GET('/api/user/project/shared')]).then(
      ([own, shared]) => live && setProjects([...(own.data ?? []), ...(shared.data ?? [])].map((p) => ({ id: p.id, name: p.name }))),
      () => undefined, // the filter offers this project only
    );
    return () => {
      live = false;
    };
  }, [userId]);
  return projects;
}
