// Templates (docs/api.md "Templates"): everyone's newest templates as our listing shows them (no canvases; the
// user's own marked `mine`, they may delete those), one template's canvas when it is used, and publishing a
// canvas as a new template.
import { useCallback, useEffect, useState } from 'react';
import { api, type TemplateBody, type TemplateSummary } from '../api/client';
import { call } from './use-projects';

export type TemplatesState = { status: 'loading' } | { status: 'ready'; templates: TemplateSummary[] } | { status: 'error'; message: string };

export function useTemplates() {
  const [state, setState] = useState<TemplatesState>({ status: 'loading' });

  const load = useCallback(async () => {
    setState({ status: 'loading' });
    try {
      const templates = await call(api.GET('/api/templates'), 'Could not load the templates');
      setState({ status: 'ready', templates });
    } catch (err) {
      setState({ status: 'error', message: (err as Error).message });
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  const remove = useCallback(async (id: string): Promise<void> => {
    await call(api.DELETE('/api/upload/templates/{id}', { params: { path: { id } } }), 'Could not delete the template');
    setState((s) => (s.status === 'ready' ? { status: 'ready', templates: s.templates.filter((t) => t.id !== id) } : s));
  }, []);

  return { state, reload: load, remove };
}

/** One template's canvas (its nodes, edges and view), read when the template is used. */
export async function templateCanvas(id: string) {
  const template = await call(api.GET('/api/templates/{id}', { params: { path: { id } } }), 'Could not load the template');
  return template.canvas;
}

/** Publishes a canvas (its nodes, edges and viewport) as a template for everyone, under `templateName`. */
export async function publishTemplate(templateName: string, canvas: TemplateBody['canvas']): Promise<void> {
  await call(api.POST('/api/upload/templates', { body: { templateName, canvas } }), 'Could not save the template');
}
